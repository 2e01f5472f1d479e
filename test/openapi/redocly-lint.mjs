// Lints an OpenAPI document with Redocly (@redocly/openapi-core is ESM-only, so
// openapi-document.e2e.spec.ts runs this in a child process).
// Usage: node redocly-lint.mjs <document.json> '<rules as JSON>'; prints the problems as JSON.
import { bundle, createConfig, lint } from '@redocly/openapi-core';

const [ref, rules] = process.argv.slice(2);
const config = await createConfig({ extends: ['recommended'], rules: JSON.parse(rules) });
const { problems: bundleProblems } = await bundle({ ref, config });
const problems = [...bundleProblems, ...(await lint({ ref, config }))];
console.log(
  JSON.stringify(problems.map((p) => ({ ruleId: p.ruleId, severity: p.severity, message: p.message, pointer: p.location?.[0]?.pointer }))),
);
