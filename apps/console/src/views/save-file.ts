/**
 * Saves what the api answered as a file. The token is a header, so a plain
 * link cannot fetch it: the answer is read, then offered from memory.
 */
export function saveFile(file: Blob, name: string): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(file);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}
