import { ForbiddenError, InvalidError, TooLargeError } from '@im/incidents';
import { classify } from './error-mapping';

const withCode = (code: string, syscall?: string) => Object.assign(new Error(`${code} happened`), { code, syscall });

describe('storage faults as clients see them', () => {
  it('full storage is 507 INSUFFICIENT_STORAGE (GraphQL code too), naming the fault but no file', () => {
    for (const error of [withCode('SQLITE_FULL'), withCode('ENOSPC', 'fdatasync')]) {
      expect(classify(error)).toEqual({
        status: 507,
        code: 'INSUFFICIENT_STORAGE',
        message: `The server's storage is full (${(error as { code: string }).code}): the request could not be completed; retry once space has been freed`,
      });
    }
  });

  it('read-only, failing or damaged storage is 503; anything else unexpected stays a bare 500', () => {
    expect(classify(withCode('SQLITE_READONLY'))).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/^The server's storage is read-only \(SQLITE_READONLY\)/) });
    expect(classify(withCode('SQLITE_IOERR_WRITE'))).toMatchObject({ status: 503, message: expect.stringMatching(/cannot be read or written \(SQLITE_IOERR_WRITE\)/) });
    expect(classify(withCode('SQLITE_CORRUPT_INDEX'))).toMatchObject({ status: 503, message: expect.stringMatching(/is damaged/) });
    expect(classify(withCode('SQLITE_CONSTRAINT_UNIQUE'))).toEqual({ status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
  });
});

describe('domain errors as clients see them', () => {
  it.each([
    [new InvalidError('limit must be from 1 to 100'), 400, 'BAD_USER_INPUT'],
    [new TooLargeError('Invalid CloudEvent: the event is over 64 KiB'), 413, 'PAYLOAD_TOO_LARGE'],
    [new ForbiddenError('visibility confidential ranks above your clearance (public)'), 403, 'FORBIDDEN'],
  ])('%s is %d %s, with its message unchanged', (error, status, code) => {
    expect(classify(error)).toEqual({ status, code, message: error.message });
  });
});
