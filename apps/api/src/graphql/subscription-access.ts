import { type DocumentNode, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { type Principal, TIMELINE_ROLES } from '@im/access';

/** A token holding at least one role, whichever. */
const ANY_ROLE = 'any';

/** The role each subscription needs (docs/api.md, "Live delivery"); a socket that asks without it is closed with 4403. */
export const SUBSCRIPTION_ROLES: Record<string, string> = {
  incidentUpdated: ANY_ROLE,
  myIncidentsChanged: ANY_ROLE,
  timelineEvent: TIMELINE_ROLES.reader,
};

/** Why the caller may not open this subscription; undefined when it may. */
export function missingRole(principal: Principal, field: string): string | undefined {
  const role = SUBSCRIPTION_ROLES[field];
  if (role === undefined) return `${field} is not a subscription`;
  if (role === ANY_ROLE) return principal.roles.length > 0 ? undefined : `${field} needs a token with a role`;
  return principal.roles.includes(role) ? undefined : `${field} needs the ${role} role`;
}

/**
 * The top-level fields an operation selects, through fragments, whatever their
 * directives say: a field skipped by @skip is still checked, never let through.
 */
export function rootFields(document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const seen = new Set<string>();
  const walk = (selections: SelectionSetNode): string[] =>
    selections.selections.flatMap((selection) => {
      if (selection.kind === Kind.FIELD) return [selection.name.value];
      if (selection.kind === Kind.INLINE_FRAGMENT) return walk(selection.selectionSet);
      const fragment = fragments.get(selection.name.value);
      if (!fragment || seen.has(fragment.name.value)) return [];
      seen.add(fragment.name.value);
      return walk(fragment.selectionSet);
    });
  return walk(operation.selectionSet);
}
