#!/usr/bin/env python3
"""Runs a command beside a hung mount: a FUSE file system whose daemon never
answers, mounted in a mount namespace of the command's own (so that nothing
else on the machine ever sees it, and it goes away with the command).

  hung-fuse-mount.py [--at DIR] [--exec | --stall-reads] COMMAND [ARGS...]

The mount point is DIR (an existing directory), or a new temporary one. The
command finds it in $NODECURE_HUNG_MOUNT. With --exec the command replaces
this script, in the same process, and holds the daemon's end itself (it
never reads it): the mount stays hung for as long as the command lives.
With --stall-reads the daemon answers everything but reads and writes:
every name is a file of 4096 bytes that opens, and whose reads and writes
never return. Without
--exec, the command runs as a child, and writing a line "release" to the
fd $NODECURE_HUNG_MOUNT_CTL ends the daemon: the mount is detached and its
connection aborted, so that calls stuck on it return (ENOTCONN). Exits with
the command's status, or 77, with the reason on stderr, when this machine
cannot make the mount (not root, no /dev/fuse, no namespaces).
"""

import ctypes
import os
import select
import signal
import subprocess
import sys
import tempfile
import struct
import threading

CLONE_NEWNS = 0x00020000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MNT_DETACH = 2
PR_SET_PDEATHSIG = 1
SAFETY_TIMEOUT = 300  # s: a command stuck on the mount is killed

libc = ctypes.CDLL(None, use_errno=True)

# The FUSE protocol (linux/fuse.h), as much as --stall-reads needs.
FUSE_LOOKUP, FUSE_GETATTR, FUSE_OPEN, FUSE_READ, FUSE_WRITE = 1, 3, 14, 15, 16
FUSE_RELEASE, FUSE_FLUSH, FUSE_INIT, FUSE_INTERRUPT = 18, 25, 26, 36
IN_HEADER = struct.Struct('<IIQQIIII')    # len opcode unique nodeid uid gid pid pad
OUT_HEADER = struct.Struct('<IiQ')        # len error unique
ATTR = struct.Struct('<QQQQQQIIIIIIIIII')  # fuse_attr (88 bytes)


def attr(nodeid):
  if nodeid == 1:
    return ATTR.pack(1, 0, 0, 0, 0, 0, 0, 0, 0, 0o40755, 2, 0, 0, 0, 4096, 0)
  return ATTR.pack(nodeid, 4096, 8, 0, 0, 0, 0, 0, 0, 0o100644, 1, 0, 0, 0,
                   4096, 0)


def stall_reads(fuse, released):
  """Answers the kernel until released; never a READ or a WRITE. (It never
  blocks in a read of /dev/fuse: a read in flight would keep the connection
  alive through the close that is to abort it.)"""
  nodes = {}
  poller = select.poll()
  poller.register(fuse, select.POLLIN)
  while not released.is_set():
    if not poller.poll(50):
      continue
    try:
      msg = os.read(fuse, 1 << 20)
    except OSError:
      return  # aborted or unmounted
    _, opcode, unique, nodeid = IN_HEADER.unpack_from(msg)[:4]
    body = b''
    error = 0
    if opcode == FUSE_INIT:
      # 7.19: the kernel takes the reply of that minor (24 bytes).
      body = struct.pack('<IIIIHHI', 7, 19, 0, 0, 16, 12, 4096)
    elif opcode == FUSE_LOOKUP:
      name = msg[IN_HEADER.size:].split(b'\0', 1)[0]
      node = nodes.setdefault(name, 2 + len(nodes))
      body = struct.pack('<QQQQII', node, 0, 0, 0, 0, 0) + attr(node)
    elif opcode == FUSE_GETATTR:
      body = struct.pack('<QII', 0, 0, 0) + attr(nodeid)
    elif opcode == FUSE_OPEN:
      body = struct.pack('<QII', 0, 0, 0)
    elif opcode in (FUSE_FLUSH, FUSE_RELEASE):
      pass
    elif opcode in (FUSE_READ, FUSE_WRITE, FUSE_INTERRUPT):
      continue  # never answered
    else:
      error = -38  # ENOSYS
    os.write(fuse, OUT_HEADER.pack(OUT_HEADER.size + len(body), error,
                                   unique) + body)


def skip(why):
  sys.stderr.write('cannot make a hung mount here: %s\n' % why)
  sys.exit(77)


def check(rc, what):
  if rc != 0:
    skip('%s: %s' % (what, os.strerror(ctypes.get_errno())))


def main():
  argv = sys.argv[1:]
  at = None
  do_exec = False
  answer = False
  while argv and argv[0].startswith('--'):
    if argv[0] == '--at' and len(argv) > 1:
      at, argv = argv[1], argv[2:]
    elif argv[0] == '--exec':
      do_exec, argv = True, argv[1:]
    elif argv[0] == '--stall-reads':
      answer, argv = True, argv[1:]
    else:
      break
  if not argv:
    sys.exit('usage: hung-fuse-mount.py [--at DIR] [--exec | --stall-reads] '
             'COMMAND [ARGS...]')
  if not sys.platform.startswith('linux'):
    skip('not Linux')
  if not os.path.exists('/dev/fuse'):
    skip('no /dev/fuse')
  check(libc.unshare(CLONE_NEWNS), 'unshare(CLONE_NEWNS)')
  # Nothing mounted from here on propagates to the machine's namespace.
  check(libc.mount(b'none', b'/', None, MS_REC | MS_PRIVATE, None),
        'mount --make-rprivate /')
  try:
    fuse = os.open('/dev/fuse', os.O_RDWR)  # close-on-exec: ours alone
  except OSError as e:
    skip('/dev/fuse: %s' % e)
  if at is not None:
    top = None
    mnt = os.path.abspath(at)
  else:
    top = tempfile.mkdtemp(prefix='nodecure-hung-')
    mnt = os.path.join(top, 'mnt')
    os.mkdir(mnt)
  opts = 'fd=%d,rootmode=40000,user_id=0,group_id=0' % fuse
  check(libc.mount(b'nodecure-hung', mnt.encode(), b'fuse.nodecure',
                   0, opts.encode()), 'mount -t fuse')

  if do_exec:
    os.set_inheritable(fuse, True)
    os.environ['NODECURE_HUNG_MOUNT'] = mnt
    os.execvp(argv[0], argv)

  released = threading.Event()
  daemon = None
  if answer:
    daemon = threading.Thread(target=stall_reads, args=(fuse, released),
                              daemon=True)
    daemon.start()

  def release():
    if released.is_set():
      return
    released.set()
    if daemon is not None:
      daemon.join()
    libc.umount2(mnt.encode(), MNT_DETACH)
    os.close(fuse)  # aborts the connection: stuck calls return

  ctl_r, ctl_w = os.pipe()

  def listen():
    with os.fdopen(ctl_r, 'r') as ctl:
      for line in ctl:
        if line.strip() == 'release':
          release()

  threading.Thread(target=listen, daemon=True).start()

  def child_setup():
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)

  env = dict(os.environ, NODECURE_HUNG_MOUNT=mnt,
             NODECURE_HUNG_MOUNT_CTL=str(ctl_w))
  child = subprocess.Popen(argv, env=env, preexec_fn=child_setup,
                           pass_fds=(ctl_w,))
  os.close(ctl_w)
  try:
    status = child.wait(timeout=SAFETY_TIMEOUT)
  except subprocess.TimeoutExpired:
    child.kill()
    child.wait()
    sys.stderr.write('hung-fuse-mount.py: the command was stuck for %d s: '
                     'killed\n' % SAFETY_TIMEOUT)
    status = 1
  release()
  if top is not None:
    try:
      os.rmdir(mnt)
      os.rmdir(top)
    except OSError:
      pass
  sys.exit(status if status >= 0 else 128 - status)


if __name__ == '__main__':
  main()
