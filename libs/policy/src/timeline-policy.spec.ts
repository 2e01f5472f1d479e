import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@im/config';
import { levelsCleared, loadTimelinePolicy, PolicyFileError } from './timeline-policy';

const shipped = join(__dirname, '../../../policy/timeline-policy.json');
const dir = mkdtempSync(join(tmpdir(), 'im-policy-'));
const write = (name: string, content: string) => {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
};

describe('loadTimelinePolicy', () => {
  it('reads the shipped policy file', () => {
    expect(loadTimelinePolicy(shipped)).toMatchObject({
      default_visibility: 'internal',
      redaction: { replacement: '[REDACTED]', data_keys_kept: ['severity', 'service'], actor_redacted_for: ['pii'] },
    });
  });

  it('reports a missing or unparsable file as a configuration error', () => {
    expect(() => loadTimelinePolicy(join(dir, 'missing.json'))).toThrow(ConfigError);
    expect(() => loadTimelinePolicy(write('broken.json', '{"roles": '))).toThrow(/cannot read the policy file/);
  });

  it('names every problem of a malformed policy', () => {
    const file = write('bad.json', JSON.stringify({ roles: { 'timeline.read': 7 }, visibility_rank: { public: 'low' }, default_visibility: 'secret', redaction: {} }));
    const attempt = () => loadTimelinePolicy(file);
    expect(attempt).toThrow(PolicyFileError);
    expect(attempt).toThrow(/roles must map actions to role names; visibility_rank must map levels to whole numbers; default_visibility/);
  });
});

describe('levelsCleared', () => {
  it('gives the levels ranked at or below a clearance, and none for an unknown one', () => {
    const policy = loadTimelinePolicy(shipped);
    expect(levelsCleared(policy, 'public')).toEqual(['public']);
    expect(levelsCleared(policy, 'restricted')).toEqual(['public', 'internal', 'restricted']);
    expect(levelsCleared(policy, 'confidential')).toEqual(['public', 'internal', 'restricted', 'confidential']);
    expect(levelsCleared(policy, 'cosmic')).toEqual([]);
  });
});
