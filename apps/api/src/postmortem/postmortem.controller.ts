import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { type Principal, TIMELINE_ROLES } from '@im/access';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { MARKDOWN_CONTENT_TYPE } from '../markdown/markdown-text';
import { PostmortemDrafts } from './postmortem-drafts.service';
import { PostmortemApiDocs } from './postmortem.api-docs';

@PostmortemApiDocs.controller
@Controller('api/v1/incidents')
export class PostmortemController {
  constructor(private readonly drafts: PostmortemDrafts) {}

  @Get(':id/postmortem')
  @RequireRole(TIMELINE_ROLES.exporter)
  @PostmortemApiDocs.postmortem
  async postmortem(@Param('id') id: string, @CurrentPrincipal() caller: Principal, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const markdown = await this.drafts.draft(caller, id);
    void reply.header('content-type', MARKDOWN_CONTENT_TYPE);
    return markdown;
  }
}
