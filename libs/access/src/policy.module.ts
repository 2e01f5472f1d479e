import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EmbeddedPdp, loadTimelinePolicy, OpaPdp, PDP, type TimelinePolicy } from '@im/policy';
import { IncidentVisibility } from './incident-visibility';
import { TIMELINE_POLICY } from './policy-tokens';

export { TIMELINE_POLICY };

/** The PDP the configuration names, the policy file (redaction text, kept keys, ranks) both modes share, and who sees which incident. */
@Global()
@Module({
  providers: [
    { provide: TIMELINE_POLICY, inject: [APP_CONFIG], useFactory: (config: AppConfig) => loadTimelinePolicy(config.policy.file) },
    {
      provide: PDP,
      inject: [APP_CONFIG, TIMELINE_POLICY],
      useFactory: (config: AppConfig, policy: TimelinePolicy) =>
        config.policy.mode === 'opa' ? new OpaPdp(config.policy.opaUrl, config.policy.timeoutMs) : new EmbeddedPdp(policy),
    },
    IncidentVisibility,
  ],
  exports: [PDP, TIMELINE_POLICY, IncidentVisibility],
})
export class PolicyModule {}
