import { GraphQLInt, GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { queryLimitError } from './query-limits.plugin';

const Item: GraphQLObjectType = new GraphQLObjectType({ name: 'Item', fields: () => ({ name: { type: GraphQLString }, next: { type: Item } }) });
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      items: {
        type: new GraphQLList(Item),
        args: { limit: { type: GraphQLInt } },
        extensions: { complexity: ({ args, childComplexity }: { args: { limit?: number }; childComplexity: number }) => (args.limit ?? 1) * childComplexity },
      },
    },
  }),
});

describe('queryLimitError', () => {
  it('judges the same parsed document again by its variables and limits, not by an earlier answer', () => {
    const document = parse('query Q($limit: Int) { items(limit: $limit) { name } }');
    expect(queryLimitError(schema, document, 'Q', { limit: 10 }, 100)).toBeUndefined();
    expect(queryLimitError(schema, document, 'Q', { limit: 500 }, 100)?.message).toBe('Query complexity 500 is over the limit of 100');
    expect(queryLimitError(schema, document, 'Q', { limit: 10 }, 100)).toBeUndefined();
    expect(queryLimitError(schema, document, 'Q', { limit: 10 }, 5)?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', complexity: 10, maxComplexity: 5 });
  });

  it('answers a repeated refusal with a new error each time', () => {
    const document = parse('{ items { next { next { next { name } } } } }');
    const first = queryLimitError(schema, document, undefined, undefined, 100, 2);
    const second = queryLimitError(schema, document, undefined, undefined, 100, 2);
    expect(first?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', maxDepth: 2 });
    expect(second).not.toBe(first);
    expect(second?.message).toBe(first?.message);
  });
});
