/**
 * Sets an own, enumerable member of an object built from untrusted names:
 * `__proto__` through defineProperty, since assignment would take it for the
 * prototype; every other name by assignment, which V8 does several times
 * faster (a binary-mode event sets one member per `ce-*` header).
 */
export function setOwnMember(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, configurable: true, writable: true });
  else target[name] = value;
}
