import { IsOptional, IsString } from 'class-validator';
import type { Incident } from '@im/incidents';

/**
 * Types only: the values (non-empty title, known severity, lengths) are the
 * domain's rules, checked by `decide`, so REST and the timeline agree.
 */
export class CreateIncidentDto {
  @IsString({ message: 'title is required and must be a non-empty string' })
  title!: string;

  @IsString({ message: 'severity is required and must be one of SEV-1, SEV-2, SEV-3, SEV-4' })
  severity!: string;

  @IsOptional()
  @IsString({ message: 'description must be a string' })
  description?: string;
}

export interface IncidentResponse {
  id: string;
  title: string;
  description?: string;
  severity: string;
  status: string;
  created_at: string;
  updated_at: string;
}

export const toIncidentResponse = (incident: Incident): IncidentResponse => ({
  id: incident.id,
  title: incident.title,
  ...(incident.description !== undefined ? { description: incident.description } : {}),
  severity: incident.severity,
  status: incident.status,
  created_at: incident.createdAt,
  updated_at: incident.updatedAt,
});
