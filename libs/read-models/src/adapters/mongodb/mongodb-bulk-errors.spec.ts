import mongoose, { type Connection, type mongo } from 'mongoose';
import { hex, MongoReadStore } from './mongodb-read-store';

// The driver's bulk-write classes, built as the driver builds them (mongoose itself takes BulkWriteResult from here).
const bulk = require('mongodb/lib/bulk/common') as {
  BulkWriteResult: new (result: object, ordered: boolean) => mongo.BulkWriteResult;
  WriteError: new (error: { code: number; index: number; errmsg: string }) => mongo.WriteError;
  WriteConcernError: new (error: { code: number; errmsg: string }) => mongo.WriteConcernError;
};
const { MongoBulkWriteError, MongoNetworkError, MongoServerError } = mongoose.mongo;

const result = (writeErrors: mongo.WriteError[] = [], writeConcernErrors: mongo.WriteConcernError[] = []) =>
  new bulk.BulkWriteResult(
    { ok: 1, writeErrors, writeConcernErrors, insertedIds: [], nInserted: 0, nUpserted: 0, nMatched: 0, nModified: 0, nRemoved: 0, upserted: [] },
    false,
  );
const duplicate = (index: number) => new bulk.WriteError({ code: 11000, index, errmsg: 'E11000 duplicate key error collection: rm_preferences index: _id_' });
const replicationTimeout = () => new bulk.WriteConcernError({ code: 64, errmsg: 'waiting for replication timed out' });
/** What the driver throws when write errors came back: the errors, with any write-concern error left in the result. */
const writeErrorsThrown = (writeErrors: mongo.WriteError[], writeConcernErrors: mongo.WriteConcernError[] = []) =>
  new MongoBulkWriteError({ message: writeErrors[0].errmsg ?? 'write error', code: writeErrors[0].code, writeErrors }, result(writeErrors, writeConcernErrors));

describe('MongoDB read store: a failed bulk write (checked with the driver error classes, without a server)', () => {
  let connection: Connection;
  let store: MongoReadStore;
  let bulkWrite: jest.SpyInstance;
  let checkpoint: jest.SpyInstance;

  beforeEach(() => {
    // Never opened: the models' bulkWrite and the checkpoint write are replaced below.
    connection = mongoose.createConnection();
    store = new (MongoReadStore as unknown as new (connection: Connection) => MongoReadStore)(connection);
    bulkWrite = jest.spyOn(connection.model('preferences'), 'bulkWrite');
    checkpoint = jest.spyOn(connection.model('checkpoints'), 'updateOne').mockResolvedValue({} as never);
  });
  afterEach(() => connection.close());

  const prefs = (userId: string) => ({ userId, pushEnabled: true, severityFilter: [], quietHours: null, channels: [], updatedAt: '2026-11-22T00:00:00Z' });
  const commit = () =>
    store.commit('preferences', [{ key: 'ann', doc: prefs('ann'), position: 1n }, { key: 'bob', doc: prefs('bob'), position: 2n }], 2n);

  it.each([
    ['a network failure', () => new MongoBulkWriteError(new MongoNetworkError('connection reset by peer'), result())],
    ['NotWritablePrimary', () => new MongoBulkWriteError(new MongoServerError({ message: 'not primary', code: 10107 }), result())],
    ['a write-concern failure', () => new MongoBulkWriteError({ message: 'waiting for replication timed out', code: 64 }, result([], [replicationTimeout()]))],
    ['duplicate keys beside a write-concern error', () => writeErrorsThrown([duplicate(0)], [replicationTimeout()])],
    ['a duplicate key beside another write error', () => writeErrorsThrown([duplicate(0), new bulk.WriteError({ code: 2, index: 1, errmsg: 'bad value' })])],
  ])('fails the commit and keeps the checkpoint on %s', async (_, error) => {
    const thrown = error();
    bulkWrite.mockRejectedValue(thrown);
    await expect(commit()).rejects.toBe(thrown);
    expect(checkpoint).not.toHaveBeenCalled();
  });

  it('treats duplicate keys alone as upserts a newer document won, and moves the checkpoint', async () => {
    bulkWrite.mockRejectedValue(writeErrorsThrown([duplicate(0), duplicate(1)]));
    await commit();
    expect(checkpoint).toHaveBeenCalledWith({ _id: 'preferences' }, { $max: { position: hex(2n) } }, { upsert: true });
  });
});
