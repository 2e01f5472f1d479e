import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EmbeddedPdp, loadTimelinePolicy, OpaPdp, PDP, type TimelinePolicy } from '@im/policy';

export const TIMELINE_POLICY = Symbol('TIMELINE_POLICY');

/** The PDP the configuration names, and the policy file (redaction text, kept keys) both modes share. */
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
  ],
  exports: [PDP, TIMELINE_POLICY],
})
export class PolicyModule {}
