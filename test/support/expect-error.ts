/** Every REST error is exactly {error, status} with the HTTP code, and never a stack trace. */
export function expectError(
  res: { status: number; body: unknown; text?: string },
  status: number,
  message?: string | RegExp,
): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.any(String), status });
  if (message) expect((res.body as { error: string }).error).toMatch(message);
  if (res.text) expect(res.text).not.toMatch(/\n\s+at /);
}
