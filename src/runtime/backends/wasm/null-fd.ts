/**
 * One descriptor on the null device, shared by every WASI run in the process: node:wasi needs real
 * descriptors for the guest's stdio, and handing it the host's own 0/1/2 would let a module seek,
 * truncate or re-flag them. Output never goes through it (fd_write is captured).
 */
import { closeSync, openSync } from 'node:fs';
import { devNull } from 'node:os';

let fd: number | undefined;
const users = new Set<object>();

/** The shared null-device descriptor, opened on first use; `user` holds it open. */
export function nullFd(user: object): number {
  fd ??= openSync(devNull, 'r+');
  users.add(user);
  return fd;
}

/** Releases `user`'s hold; the descriptor closes when nobody holds it. */
export function closeNullFd(user: object): void {
  users.delete(user);
  if (users.size > 0 || fd === undefined) return;
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
  fd = undefined;
}
