import { Inject, Injectable } from '@nestjs/common';
import type { Incident } from '@im/incidents';
import { INCIDENT_QUERIES, type IncidentListQuery, type IncidentQueries } from '@im/read-models';
import type { Principal } from './principal';
import { IncidentVisibility } from './incident-visibility';

export interface IncidentPage {
  incidents: Incident[];
  /** More incidents follow the last one of this page. */
  more: boolean;
}

/**
 * The incident read model as a caller sees it, for REST and GraphQL alike:
 * every read here leaves out, or answers NotFound for, what the caller's
 * clearance does not cover (IncidentVisibility).
 */
@Injectable()
export class IncidentQueryService {
  constructor(
    @Inject(INCIDENT_QUERIES) private readonly incidents: IncidentQueries,
    private readonly visibility: IncidentVisibility,
  ) {}

  /**
   * One incident; NotFound when it does not exist or is withheld from the caller.
   * Also the answer of a command: the command has waited for the read model to show it.
   */
  async get(caller: Principal, id: string): Promise<Incident> {
    return this.visibility.reveal(caller, id, await this.incidents.findById(id));
  }

  /** The incident if the caller sees it; undefined when it does not exist or is withheld, for a caller that answers 404 later. */
  async find(caller: Principal, id: string): Promise<Incident | undefined> {
    const incident = await this.incidents.findById(id);
    return incident && this.visibility.shows(caller, incident) ? incident : undefined;
  }

  /** A page of the incidents the caller sees, newest first. */
  async list(caller: Principal, query: Omit<IncidentListQuery, 'visibleLevels'>): Promise<IncidentPage> {
    // One extra row tells whether a next page exists.
    const rows = await this.incidents.list({ ...query, limit: query.limit + 1, visibleLevels: this.visibility.levelsFor(caller) });
    return { incidents: rows.slice(0, query.limit), more: rows.length > query.limit };
  }

  /** The incidents the caller sees where they hold any RACI role, newest first. */
  listMine(caller: Principal, query: Omit<IncidentListQuery, 'after' | 'visibleLevels'>): Promise<Incident[]> {
    return this.incidents.listForUser(caller.sub, { ...query, visibleLevels: this.visibility.levelsFor(caller) });
  }

  /** Several by id, as stored (for a per-request batch loader): whoever answers with one reveals it to the caller first. */
  findMany(ids: string[]): Promise<Map<string, Incident>> {
    return this.incidents.findMany(ids);
  }

  /** Which of these incidents are withheld from the caller (their timeline events are withheld with them). */
  async withheld(caller: Principal, ids: string[]): Promise<Set<string>> {
    const found = await this.incidents.findMany(ids);
    return new Set([...found.values()].filter((incident) => !this.visibility.shows(caller, incident)).map((incident) => incident.id));
  }
}
