import { AttemptIds, firstAttemptIdAt } from './attempt-ids';

describe('AttemptIds', () => {
  it('keeps increasing when the clock steps back, stands still or runs on', () => {
    const ids = new AttemptIds();
    const clock = [1000, 1000, 1001, 400, 400, 1001, 1002, 999, 5000];
    const made = clock.map((now) => ids.next(now));
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
  });

  it('moves on to the next millisecond when a millisecond has used up its sequence', () => {
    const ids = new AttemptIds();
    let last = ids.next(7);
    for (let i = 0; i < 0x1000010; i += 1) {
      const next = ids.next(7);
      if (next <= last) throw new Error(`${next} after ${last}`);
      last = next;
    }
  });

  it('differs between processes started in the same millisecond (a restart after the clock stepped back)', () => {
    expect(new AttemptIds().next(1000)).not.toBe(new AttemptIds().next(1000));
  });

  it('gives a bound that sorts after every id made before its time and before every id made at or after it', () => {
    const ids = new AttemptIds();
    const before = [ids.next(1_700_000_000_000), ids.next(1_700_000_000_999)];
    const after = [ids.next(1_700_000_001_000), ids.next(1_700_000_001_000), ids.next(1_800_000_000_000)];
    const bound = firstAttemptIdAt(1_700_000_001_000);
    expect(before.every((id) => id < bound)).toBe(true);
    expect(after.every((id) => id > bound)).toBe(true);
  });
});
