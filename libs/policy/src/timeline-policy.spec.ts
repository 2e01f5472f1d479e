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
      redaction: {
        replacement: '[REDACTED]',
        attributes_kept: ['specversion', 'id', 'source', 'type', 'time', 'subject', 'datacontenttype', 'im.visibility', 'im.data_class'],
        data_keys_kept: ['severity', 'service'],
        actor_redacted_for: ['pii'],
      },
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

  it.each([
    [undefined, /redaction.attributes_kept must be a list of CloudEvent attribute names/],
    [['specversion', 'id', 'type'], /redaction.attributes_kept must keep source, time/],
    [['specversion', 'id', 'source', 'type', 'time', 'data_base64', 'im.actor'], /must not name data_base64, im.actor \(the decision governs them\)/],
  ])('refuses an allow-list of redacted attributes %j that is missing, breaks CloudEvents or names what the decision governs', (attributes, message) => {
    const shippedPolicy = loadTimelinePolicy(shipped);
    const file = write('allow-list.json', JSON.stringify({ ...shippedPolicy, redaction: { ...shippedPolicy.redaction, attributes_kept: attributes } }));
    expect(() => loadTimelinePolicy(file)).toThrow(message);
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
