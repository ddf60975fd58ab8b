/* Copyright nodecure contributors. All rights reserved.
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to
 * deal in the Software without restriction, including without limitation the
 * rights to use, copy, modify, merge, publish, distribute, sublicense, and/or
 * sell copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in
 * all copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
 * FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
 * IN THE SOFTWARE.
 */

/*
 * nodecure: synchronous path calls on hang-prone mounts hop to the Priority
 * Executor (Linux only).
 *
 * A stopped section (uv/sync-stop.h) ends a blocking system call with the
 * interrupt signal. A call that waits for a network server or a FUSE daemon
 * (NFS hard mounts, a FUSE file system whose daemon stopped answering)
 * waits killably: no signal but a fatal one ends it, and the loop thread
 * would wait for as long as the server does. So a synchronous call of a
 * stoppable section whose path lies on such a mount runs on an executor
 * instead, and the section's stop abandons it (priority-executor.c).
 *
 * Which calls: stat, lstat, access, readlink, realpath, scandir, statfs and
 * open (an fd that arrives after the caller left is closed); then, on an fd
 * such an open returned (`uv__hop_fds`, checked against /proc/self/fdinfo's
 * mnt_id, so that an fd closed elsewhere and reused is not taken for it),
 * fstat, read, write and close. The executor runs a copy of the request
 * with a copy of its path; a read reads into a buffer of the hop's own, a
 * write writes a copy of the data through a duplicate of the fd (the hop):
 * an abandoned hop owns everything its call touches and releases it when
 * the call returns. A close abandoned before it started is done by the
 * cleanup. The executor starts no call whose caller gave up already
 * (decided under the lock against the caller's look at `ran`), so that a
 * write or a creating open abandoned before it started is known to do
 * nothing; one abandoned after may still take effect, and the caller's
 * section says so (uv_sync_stop_call_abandoned()). Other calls that change
 * the file system stay in place.
 *
 * Which mounts: the longest mount point of /proc/self/mountinfo that is a
 * prefix of the absolute, lexically normalised path (a relative path is
 * taken from the working directory) decides; its file system type is one of
 * uv__hop_fstypes, a FUSE type or one of $UV_FS_HANG_PRONE_TYPES (a comma-
 * separated list, read once). A symbolic link elsewhere that leads onto
 * such a mount is not seen. One thread (libuv-mounts) waits for changes of
 * the mount table (POLLPRI) and reads it again; it starts with the first
 * stop that is registered, so that a process without --event-loop-timeout
 * never has it.
 *
 * A stuck mount: while an abandoned hop on a mount has not returned, a new
 * call on that mount fails at once with UV_ETIMEDOUT instead of abandoning
 * another thread (what a soft NFS mount returns when its server does not
 * answer), except a close, whose fd must go. The mount answers again once
 * the stuck call returns.
 *
 * Lock rule: uv__hop_mutex guards the table, the stuck list, the fd list
 * and every hop's `refs`; no other lock is taken while it is held (it is a
 * leaf: the executor's uv__tpm_mutex is never held with it).
 * Ownership: the watcher thread owns the mountinfo fd; a table, once
 * published, is never changed, only replaced and freed under the lock. A hop
 * belongs to its caller until uv_priority_work() returns; an abandoned hop
 * is shared by its caller and its executor (`refs`), and the last to let go
 * frees it.
 */

#include "threadpool-manager.h"

#if defined(__linux__)

#include "unix/internal.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef O_TMPFILE
#define O_TMPFILE 0
#endif

struct uv__hop_mount {
  char* dir;                      /* unescaped mount point */
  size_t len;
  int id;                         /* mountinfo's mount ID */
  int hangs;                      /* its calls may wait for a server */
};

/* The mounts that matter: the hang-prone ones and those mounted below one
 * of them (which a longer prefix must win over). */
struct uv__hop_table {
  size_t n;
  struct uv__hop_mount* mounts;
  char* strings;
};

/* A mount with hops in flight. */
struct uv__hop_stuck {
  int id;
  unsigned int running;           /* hops whose caller waits */
  unsigned int abandoned;         /* abandoned hops that have not returned */
};

/* An fd that a hop opened: its calls hop too while it stays on that mount. */
struct uv__hop_fd {
  int fd;
  int id;
};

struct uv__hop {
  uv_priority_work_t work;
  uv_fs_t req;                    /* the copy the executor runs */
  void (*fs_work)(struct uv__work* w);
  int id;                         /* the mount's */
  int refs;                       /* once abandoned: caller and executor */
  int ran;                        /* the executor started the call */
  int stuck;                      /* counted in its mount's `abandoned` */
  char* bounce;                   /* a read's or write's buffer, its own */
  int dup;                        /* a write's fd, its own, or -1 */
  char path[1];
};

/* A read or write on an fd hops with a buffer of its own, of at most this
 * much: a longer one returns less, as read(2) and write(2) may. */
#define UV__HOP_BUF_MAX ((size_t) 8 << 20)

static const char* const uv__hop_fstypes[] = {
  "fuse", "fuseblk", "virtiofs", "nfs", "nfs4", "cifs", "smb3", "smbfs",
  "9p", "ceph", "glusterfs", "afs", "coda", "lustre", "gfs2", "ocfs2",
  "orangefs", "pvfs2", "beegfs", "gpfs", "davfs", "ncpfs"
};

static uv_once_t uv__hop_once = UV_ONCE_INIT;
static uv_mutex_t uv__hop_mutex;
static uv_mutex_t uv__hop_load_mutex;  /* one reader of mountinfo at a time */
_Atomic int uv__hop_any;
_Atomic int uv__hop_watching;
static struct uv__hop_table* uv__hop_table;
static struct uv__hop_stuck* uv__hop_stuck;
static size_t uv__hop_nstuck;
static size_t uv__hop_stuck_size;
static struct uv__hop_fd* uv__hop_fds;
static size_t uv__hop_nfds;
static size_t uv__hop_fds_size;
static _Atomic uint64_t uv__hop_count;
static const char* uv__hop_extra;  /* $UV_FS_HANG_PRONE_TYPES */
static int uv__hop_fd = -1;
static uv_thread_t uv__hop_thread;

static int uv__hop_fstype_hangs(const char* type) {
  const char* p;
  size_t len;
  size_t i;

  if (strncmp(type, "fuse.", 5) == 0)
    return 1;
  for (i = 0; i < ARRAY_SIZE(uv__hop_fstypes); i++)
    if (strcmp(type, uv__hop_fstypes[i]) == 0)
      return 1;
  /* More types, comma-separated: a block device served over the network
   * (NBD, iSCSI) hangs as an NFS mount does. */
  len = strlen(type);
  for (p = uv__hop_extra; p != NULL && *p != '\0'; p += strcspn(p, ", ")) {
    p += strspn(p, ", ");
    if (strncmp(p, type, len) == 0 && strchr(", ", p[len]) != NULL)
      return 1;  /* (strchr() also finds the terminating NUL) */
  }
  return 0;
}


/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void uv__hop_unescape(char* s) {
  char* d;

  for (d = s; *s != '\0'; d++) {
    if (s[0] == '\\' &&
        s[1] >= '0' && s[1] <= '3' &&
        s[2] >= '0' && s[2] <= '7' &&
        s[3] >= '0' && s[3] <= '7') {
      *d = (char) ((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
      s += 4;
    } else {
      *d = *s++;
    }
  }
  *d = '\0';
}


static int uv__hop_below(const char* path, size_t len, const char* dir,
                         size_t dlen) {
  if (dlen == 1)
    return 1;  /* "/" */
  return len >= dlen &&
         memcmp(path, dir, dlen) == 0 &&
         (path[dlen] == '/' || path[dlen] == '\0');
}


static void uv__hop_table_free(struct uv__hop_table* t) {
  if (t == NULL)
    return;
  uv__free(t->mounts);
  uv__free(t->strings);
  uv__free(t);
}


/* Parses mountinfo (`buf`, NUL-terminated, modified). Returns the table of
 * the mounts that matter, or NULL when memory is short. */
static struct uv__hop_table* uv__hop_parse(char* buf, size_t size) {
  struct uv__hop_table* t;
  struct uv__hop_mount* all;
  struct uv__hop_mount* hangs;
  size_t nhangs;
  size_t nall;
  size_t cap;
  size_t i;
  size_t j;
  size_t k;
  char* line;
  char* next;
  char* field[6];
  char* type;
  char* save;
  char* p;
  int nfield;
  int keep;

  t = uv__calloc(1, sizeof(*t));
  if (t == NULL)
    return NULL;
  cap = 16;
  nall = 0;
  all = uv__malloc(cap * sizeof(*all));
  if (all == NULL) {
    uv__free(t);
    return NULL;
  }

  /* "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw":
   * field 5 is the mount point; the type follows the "-" separator. */
  for (line = buf; line < buf + size && *line != '\0'; line = next) {
    next = strchr(line, '\n');
    if (next != NULL)
      *next++ = '\0';
    else
      next = line + strlen(line);
    /* Six fields, any number of optional ones, "-", the type. */
    nfield = 0;
    type = NULL;
    for (p = strtok_r(line, " ", &save); p != NULL;
         p = strtok_r(NULL, " ", &save)) {
      if (nfield < 6) {
        field[nfield++] = p;
      } else if (strcmp(p, "-") == 0) {
        type = strtok_r(NULL, " ", &save);
        break;
      }
    }
    if (nfield < 6 || type == NULL)
      continue;
    if (nall == cap) {
      struct uv__hop_mount* grown;
      grown = uv__realloc(all, 2 * cap * sizeof(*all));
      if (grown == NULL)
        goto fail;
      all = grown;
      cap *= 2;
    }
    uv__hop_unescape(field[4]);
    all[nall].dir = field[4];
    all[nall].len = strlen(field[4]);
    all[nall].id = atoi(field[0]);
    all[nall].hangs = uv__hop_fstype_hangs(type);
    nall++;
  }

  /* Keep the hang-prone mounts and every mount below one of them: against
   * a copy of the hang-prone ones (few), so that a host with thousands of
   * mounts that change often does not pay n * n comparisons a reload. */
  for (i = 0, nhangs = 0; i < nall; i++)
    nhangs += all[i].hangs;
  hangs = uv__malloc((nhangs > 0 ? nhangs : 1) * sizeof(*hangs));
  if (hangs == NULL)
    goto fail;
  for (i = 0, k = 0; i < nall; i++)
    if (all[i].hangs)
      hangs[k++] = all[i];
  for (i = 0, j = 0; i < nall; i++) {
    keep = all[i].hangs;
    for (k = 0; !keep && k < nhangs; k++)
      keep = uv__hop_below(all[i].dir, all[i].len,
                           hangs[k].dir, hangs[k].len);
    if (keep)
      all[j++] = all[i];
  }
  uv__free(hangs);
  t->n = j;
  t->mounts = all;

  /* The strings point into `buf`: copy those kept. */
  size_t total = 0;
  for (i = 0; i < t->n; i++)
    total += t->mounts[i].len + 1;
  t->strings = uv__malloc(total > 0 ? total : 1);
  if (t->strings == NULL)
    goto fail;
  p = t->strings;
  for (i = 0; i < t->n; i++) {
    memcpy(p, t->mounts[i].dir, t->mounts[i].len + 1);
    t->mounts[i].dir = p;
    p += t->mounts[i].len + 1;
  }
  return t;

fail:
  uv__free(all);
  uv__free(t);
  return NULL;
}


/* Reads the mount table from the start of `fd` and publishes it. Keeps the
 * old table when it cannot. */
static void uv__hop_load_locked(int fd) {
  struct uv__hop_table* t;
  struct uv__hop_table* old;
  size_t size;
  size_t len;
  ssize_t r;
  char* buf;
  char* grown;

  size = 16384;
  len = 0;
  buf = uv__malloc(size);
  if (buf == NULL)
    return;
  if (lseek(fd, 0, SEEK_SET) != 0)
    goto out;
  for (;;) {
    if (len + 1 == size) {
      grown = uv__realloc(buf, 2 * size);
      if (grown == NULL)
        goto out;
      buf = grown;
      size *= 2;
    }
    do
      r = read(fd, buf + len, size - len - 1);
    while (r == -1 && errno == EINTR);
    if (r < 0)
      goto out;
    if (r == 0)
      break;
    len += r;
  }
  buf[len] = '\0';

  t = uv__hop_parse(buf, len);
  if (t == NULL)
    goto out;
  uv_mutex_lock(&uv__hop_mutex);
  old = uv__hop_table;
  uv__hop_table = t;
  atomic_store_explicit(&uv__hop_any, t->n > 0, memory_order_relaxed);
  uv_mutex_unlock(&uv__hop_mutex);
  uv__hop_table_free(old);

out:
  uv__free(buf);
}


/* Lock order: uv__hop_load_mutex, then uv__hop_mutex. */
static void uv__hop_load(int fd) {
  uv_mutex_lock(&uv__hop_load_mutex);
  uv__hop_load_locked(fd);
  uv_mutex_unlock(&uv__hop_load_mutex);
}


/* The watcher: the kernel marks mountinfo POLLPRI (and POLLERR) when the
 * mount table changed since it was last read. */
static void uv__hop_watch(void* arg) {
  struct pollfd pfd;
  int r;

  (void) arg;
  uv_thread_setname("libuv-mounts");
  pfd.fd = uv__hop_fd;
  pfd.events = POLLPRI;
  for (;;) {
    pfd.revents = 0;
    r = poll(&pfd, 1, -1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0 || (pfd.revents & POLLNVAL))
      break;
    if (pfd.revents & (POLLPRI | POLLERR))
      uv__hop_load(uv__hop_fd);
  }
  atomic_store(&uv__hop_watching, 0);
}


static void uv__hop_atfork_prepare(void) {
  uv_mutex_lock(&uv__hop_load_mutex);
  uv_mutex_lock(&uv__hop_mutex);
}


static void uv__hop_atfork_parent(void) {
  uv_mutex_unlock(&uv__hop_mutex);
  uv_mutex_unlock(&uv__hop_load_mutex);
}


static void uv__hop_atfork_child(void) {
  int fd;

  /* As slow-resource.c: held by the forking thread, start afresh. The
   * watcher is not in the child: uv__fs_hop() looks for changes itself,
   * on a mountinfo of its own (the parent's fd shares its offset and its
   * change events). The parent's abandoned hops are not the child's: their
   * mounts are not stuck here (the hops are leaked). */
  if (uv_mutex_init(&uv__hop_mutex) || uv_mutex_init(&uv__hop_load_mutex))
    abort();
  atomic_store(&uv__hop_watching, 0);
  uv__hop_nstuck = 0;
  if (uv__hop_fd >= 0) {
    fd = uv__open_cloexec("/proc/self/mountinfo", O_RDONLY);
    uv__close_nocheckstdio(uv__hop_fd);
    uv__hop_fd = fd;
  }
}


static void uv__hop_init_once(void) {
  uv_thread_options_t options;
  sigset_t saved;

  if (uv_mutex_init(&uv__hop_mutex) || uv_mutex_init(&uv__hop_load_mutex))
    abort();
  if (pthread_atfork(uv__hop_atfork_prepare,
                     uv__hop_atfork_parent,
                     uv__hop_atfork_child))
    abort();
  uv__hop_extra = getenv("UV_FS_HANG_PRONE_TYPES");
  if (uv__hop_extra != NULL)
    uv__hop_extra = uv__strdup(uv__hop_extra);
  uv__hop_fd = uv__open_cloexec("/proc/self/mountinfo", O_RDONLY);
  if (uv__hop_fd < 0)
    return;  /* No /proc: no hops. */
  uv__hop_load(uv__hop_fd);

  options.flags = UV_THREAD_HAS_STACK_SIZE;
  options.stack_size = 256u << 10;
  uv__tpm_block_signals(&saved);
  if (0 == uv_thread_create_ex(&uv__hop_thread, &options, uv__hop_watch, NULL))
    atomic_store(&uv__hop_watching, 1);
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
}


void uv__fs_hop_init(void) {
  uv_once(&uv__hop_once, uv__hop_init_once);
}


uint64_t uv__fs_hop_count(void) {
  return atomic_load_explicit(&uv__hop_count, memory_order_relaxed);
}


/* Without a watcher (a forked child): reads the table again if it changed. */
static void uv__hop_refresh(void) {
  struct pollfd pfd;

  if (uv__hop_fd < 0)
    return;
  pfd.fd = uv__hop_fd;
  pfd.events = POLLPRI;
  pfd.revents = 0;
  if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLPRI | POLLERR)))
    uv__hop_load(uv__hop_fd);
}


/* 1: a path call that may hop; 2: an fd call that may hop; 0: in place. */
static int uv__hop_kind(const uv_fs_t* req) {
  switch (req->fs_type) {
  case UV_FS_FSTAT:
  case UV_FS_CLOSE:
    return 2;
  case UV_FS_READ:
  case UV_FS_WRITE:
    return 2 * (req->nbufs > 0);
  case UV_FS_STAT:
  case UV_FS_LSTAT:
  case UV_FS_ACCESS:
  case UV_FS_READLINK:
  case UV_FS_REALPATH:
  case UV_FS_SCANDIR:
  case UV_FS_STATFS:
    return req->path != NULL;
  case UV_FS_OPEN:
    return req->path != NULL;
  default:
    return 0;
  }
}


/* Nonzero for a call that, abandoned while it runs, may still take effect:
 * a write may land, an open create or truncate its file. */
static int uv__hop_lands(const uv_fs_t* req) {
  if (req->fs_type == UV_FS_WRITE)
    return 1;
  return req->fs_type == UV_FS_OPEN &&
         ((req->flags & (O_CREAT | O_TRUNC)) != 0 ||
          (O_TMPFILE != 0 && (req->flags & O_TMPFILE) == O_TMPFILE));
}


/* Appends `path` to the absolute, normalised `out` (length *len), lexically:
 * "." and empty components are dropped, ".." removes the last one. Returns
 * -1 if it does not fit. */
static int uv__hop_append(char* out, size_t* len, size_t size,
                          const char* path) {
  const char* end;
  size_t n;

  while (*path != '\0') {
    while (*path == '/')
      path++;
    end = strchrnul(path, '/');
    n = end - path;
    if (n == 0 || (n == 1 && path[0] == '.')) {
      /* nothing */
    } else if (n == 2 && path[0] == '.' && path[1] == '.') {
      while (*len > 0 && out[*len - 1] != '/')
        (*len)--;
      if (*len > 1)
        (*len)--;  /* the slash, but not the root's */
    } else {
      if (*len + 1 + n + 1 > size)
        return -1;
      if (*len > 1)
        out[(*len)++] = '/';
      memcpy(out + *len, path, n);
      *len += n;
    }
    path = end;
  }
  out[*len] = '\0';
  return 0;
}


static int uv__hop_resolve(const char* path, char* out, size_t size) {
  size_t len;

  if (path[0] == '/') {
    out[0] = '/';
    len = 1;
  } else {
    if (getcwd(out, size) == NULL || out[0] != '/')
      return -1;
    len = strlen(out);
  }
  out[len] = '\0';
  return uv__hop_append(out, &len, size, path);
}


/* With the lock held: the ID of the mount that holds `path` if it is
 * hang-prone, else -1. */
static int uv__hop_mount_of(const char* path) {
  const struct uv__hop_mount* best;
  const struct uv__hop_mount* m;
  size_t len;
  size_t i;

  if (uv__hop_table == NULL)
    return -1;
  best = NULL;
  len = strlen(path);
  for (i = 0; i < uv__hop_table->n; i++) {
    m = &uv__hop_table->mounts[i];
    /* Of mounts stacked on one point, the last listed is on top. */
    if ((best == NULL || m->len >= best->len) &&
        uv__hop_below(path, len, m->dir, m->len))
      best = m;
  }
  return best != NULL && best->hangs ? best->id : -1;
}


/* With the lock held: nonzero if mount `id` is hang-prone. */
static int uv__hop_id_hangs(int id) {
  size_t i;

  if (uv__hop_table == NULL)
    return 0;
  for (i = 0; i < uv__hop_table->n; i++)
    if (uv__hop_table->mounts[i].id == id)
      return uv__hop_table->mounts[i].hangs;
  return 0;
}


/* With the lock held. */
static struct uv__hop_stuck* uv__hop_stuck_find(int id) {
  size_t i;

  for (i = 0; i < uv__hop_nstuck; i++)
    if (uv__hop_stuck[i].id == id)
      return &uv__hop_stuck[i];
  return NULL;
}


/* With the lock held: the mount's entry, made if need be (NULL when memory
 * is short). */
static struct uv__hop_stuck* uv__hop_stuck_get(int id) {
  struct uv__hop_stuck* s;
  size_t size;

  s = uv__hop_stuck_find(id);
  if (s != NULL)
    return s;
  if (uv__hop_nstuck == uv__hop_stuck_size) {
    size = uv__hop_stuck_size ? 2 * uv__hop_stuck_size : 4;
    s = uv__realloc(uv__hop_stuck, size * sizeof(*s));
    if (s == NULL)
      return NULL;
    uv__hop_stuck = s;
    uv__hop_stuck_size = size;
  }
  s = &uv__hop_stuck[uv__hop_nstuck++];
  s->id = id;
  s->running = 0;
  s->abandoned = 0;
  return s;
}


/* With the lock held: forgets an entry with nothing in flight. */
static void uv__hop_stuck_put(struct uv__hop_stuck* s) {
  assert(s >= uv__hop_stuck && s < uv__hop_stuck + uv__hop_nstuck);
  if (s->running == 0 && s->abandoned == 0)
    *s = uv__hop_stuck[--uv__hop_nstuck];
}


/* With the lock held: one side of an abandoned hop lets go. */
static void uv__hop_unref(struct uv__hop* hop) {
  struct uv__hop_stuck* s;

  assert(hop->refs > 0);
  if (--hop->refs > 0)
    return;
  if (hop->stuck) {
    s = uv__hop_stuck_find(hop->id);
    assert(s != NULL && s->abandoned > 0);
    s->abandoned--;
    uv__hop_stuck_put(s);
  }
  uv__free(hop->bounce);
  uv__free(hop);
}


/* With the lock held. */
static struct uv__hop_fd* uv__hop_fd_find(int fd) {
  size_t i;

  for (i = 0; i < uv__hop_nfds; i++)
    if (uv__hop_fds[i].fd == fd)
      return &uv__hop_fds[i];
  return NULL;
}


/* With the lock held. Without memory the fd is not remembered: its calls
 * then run in place. */
static void uv__hop_fd_add(int fd, int id) {
  struct uv__hop_fd* e;
  size_t size;

  e = uv__hop_fd_find(fd);
  if (e == NULL) {
    if (uv__hop_nfds == uv__hop_fds_size) {
      size = uv__hop_fds_size ? 2 * uv__hop_fds_size : 8;
      e = uv__realloc(uv__hop_fds, size * sizeof(*e));
      if (e == NULL)
        return;
      uv__hop_fds = e;
      uv__hop_fds_size = size;
    }
    e = &uv__hop_fds[uv__hop_nfds++];
  }
  e->fd = fd;
  e->id = id;
}


/* With the lock held. */
static void uv__hop_fd_remove(int fd) {
  struct uv__hop_fd* e;

  e = uv__hop_fd_find(fd);
  if (e != NULL)
    *e = uv__hop_fds[--uv__hop_nfds];
}


/* The ID of the mount `fd` is on, from /proc/self/fdinfo (procfs only,
 * never the fd's own file system), or -1. */
static int uv__hop_fdinfo_mount(int fd) {
  char name[64];
  char buf[512];
  const char* p;
  ssize_t n;
  int f;

  snprintf(name, sizeof(name), "/proc/self/fdinfo/%d", fd);
  f = uv__open_cloexec(name, O_RDONLY);
  if (f < 0)
    return -1;
  do
    n = read(f, buf, sizeof(buf) - 1);
  while (n == -1 && errno == EINTR);
  uv__close_nocheckstdio(f);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  p = strstr(buf, "mnt_id:");
  return p != NULL ? atoi(p + 7) : -1;
}


/* The mount ID of an fd that a hop opened and that is still on that mount
 * (not closed elsewhere and reused), else -1. A close forgets the fd. */
static int uv__hop_fd_mount(const uv_fs_t* req) {
  struct uv__hop_fd* e;
  int id;

  uv_mutex_lock(&uv__hop_mutex);
  e = uv__hop_fd_find(req->file);
  id = e != NULL ? e->id : -1;
  if (id >= 0 && req->fs_type == UV_FS_CLOSE)
    uv__hop_fd_remove(req->file);
  uv_mutex_unlock(&uv__hop_mutex);
  if (id < 0 || uv__hop_fdinfo_mount(req->file) == id)
    return id;
  uv_mutex_lock(&uv__hop_mutex);
  e = uv__hop_fd_find(req->file);
  if (e != NULL && e->id == id)
    uv__hop_fd_remove(req->file);
  uv_mutex_unlock(&uv__hop_mutex);
  return -1;
}


static void uv__hop_work(uv_priority_work_t* w) {
  struct uv__hop* hop;

  hop = w->data;
  /* Under the lock, against the caller's look at `ran` once it abandoned
   * the hop (it set our stop before): a call that had not started by then
   * never starts, so that the caller can tell "did nothing". */
  uv_mutex_lock(&uv__hop_mutex);
  hop->ran = !uv__tpm_stopping();
  uv_mutex_unlock(&uv__hop_mutex);
  if (hop->ran)
    hop->fs_work(&hop->req.work_req);
  /* A write's duplicate goes here, on the executor, never on the caller:
   * NFS and FUSE flush on every close, which waits for the server. */
  if (hop->dup >= 0) {
    uv__close_nocheckstdio(hop->dup);
    hop->dup = -1;
  }
}


/* On the executor, once the work of an abandoned hop returned: releases
 * what the call produced (an fd, a list, a string) for nobody. */
static void uv__hop_abandoned(uv_priority_work_t* w) {
  struct uv__hop* hop;

  hop = w->data;
  if (hop->ran) {
    uv__fs_release_late(&hop->req, hop->req.result);
  } else if (hop->req.fs_type == UV_FS_CLOSE) {
    /* Abandoned before it started: the fd is still open and nobody may
     * close it but this close (its caller was told it is done, 0). */
    uv__close_nocheckstdio(hop->req.file);
  }
  if (hop->dup >= 0)
    uv__close_nocheckstdio(hop->dup);
  hop->req.bufs = NULL;  /* the hop's own bufsml: nothing to free */
  uv_fs_req_cleanup(&hop->req);  /* readlink, realpath, statfs */
  uv_mutex_lock(&uv__hop_mutex);
  uv__hop_unref(hop);
  uv_mutex_unlock(&uv__hop_mutex);
}


/* A write's data, gathered into the hop's own buffer (at most its size). */
static void uv__hop_gather(char* out, size_t size, const uv_fs_t* req) {
  unsigned int i;
  size_t len;

  for (i = 0; i < req->nbufs && size > 0; i++) {
    len = req->bufs[i].len < size ? req->bufs[i].len : size;
    memcpy(out, req->bufs[i].base, len);
    out += len;
    size -= len;
  }
}


/* The caller's read gets what the hop read. */
static void uv__hop_scatter(uv_fs_t* req, const char* data, ssize_t n) {
  unsigned int i;
  size_t len;

  for (i = 0; i < req->nbufs && n > 0; i++) {
    len = req->bufs[i].len < (size_t) n ? req->bufs[i].len : (size_t) n;
    memcpy(req->bufs[i].base, data, len);
    data += len;
    n -= len;
  }
}


static int uv__hop_run(uv_fs_t* req, void (*fs_work)(struct uv__work* w)) {
  struct uv__hop_stuck* s;
  struct uv__hop* hop;
  char path[PATH_MAX];
  size_t len;
  int64_t pos;
  int stuck;
  int lands;
  int kind;
  int err;
  int id;

  if (!atomic_load_explicit(&uv__hop_watching, memory_order_relaxed))
    uv__hop_refresh();
  if (!atomic_load_explicit(&uv__hop_any, memory_order_relaxed))
    return 0;
  kind = uv__hop_kind(req);
  if (kind == 0)
    return 0;
  if (kind == 1) {
    if (uv__hop_resolve(req->path, path, sizeof(path)))
      return 0;
    uv_mutex_lock(&uv__hop_mutex);
    id = uv__hop_mount_of(path);
    uv_mutex_unlock(&uv__hop_mutex);
  } else {
    id = uv__hop_fd_mount(req);
  }
  if (id < 0)
    return 0;  /* not on a hang-prone mount: in place */

  if (uv__tpm_stopping() && req->fs_type != UV_FS_CLOSE) {
    req->result = UV_EINTR;  /* stopped already: as a call stopped in place */
    return 1;
  }

  uv_mutex_lock(&uv__hop_mutex);
  s = uv__hop_stuck_get(id);
  /* A close is never refused: its fd must go. */
  stuck = s != NULL && s->abandoned > 0 && req->fs_type != UV_FS_CLOSE;
  if (s != NULL && !stuck)
    s->running++;
  uv_mutex_unlock(&uv__hop_mutex);
  if (s == NULL)
    return 0;  /* no memory: in place */
  if (stuck) {
    req->result = UV_ETIMEDOUT;  /* as a soft mount's unanswered call */
    return 1;
  }

  pos = -1;
  len = kind == 1 ? strlen(req->path) : 0;
  hop = uv__calloc(1, sizeof(*hop) + len);
  err = UV_ENOMEM;
  if (hop != NULL) {
    hop->req = *req;
    hop->req.new_path = NULL;
    if (kind == 1) {
      memcpy(hop->path, req->path, len + 1);
      hop->req.path = hop->path;
    }
    if (req->fs_type == UV_FS_READ) {
      size_t total = uv__count_bufs(req->bufs, req->nbufs);
      /* At the current position: a pread() there, and the position moved
       * by the caller once the read returned in time. An abandoned read
       * moves nothing, and on an fd closed and reused meanwhile reads
       * nothing from a pipe or socket (ESPIPE). */
      if (req->off < 0) {
        pos = lseek(req->file, 0, SEEK_CUR);  /* no request to the server */
        hop->req.off = pos;
      }
      if (total > UV__HOP_BUF_MAX)
        total = UV__HOP_BUF_MAX;
      hop->bounce = uv__malloc(total > 0 ? total : 1);
      hop->req.bufs = hop->req.bufsml;
      hop->req.bufs[0] = uv_buf_init(hop->bounce, total);
      hop->req.nbufs = 1;
    }
    hop->dup = -1;
    if (req->fs_type == UV_FS_WRITE) {
      /* A copy of the data, written through an fd of the hop's own (a
       * duplicate, above stdio, closed by the executor after the write):
       * a write abandoned while it runs may still land, but never in
       * another file that reused the caller's fd number once the caller
       * closed it. At the current position, as in place: the duplicate
       * shares it. */
      size_t total = uv__count_bufs(req->bufs, req->nbufs);
      if (total > UV__HOP_BUF_MAX)
        total = UV__HOP_BUF_MAX;
      hop->bounce = uv__malloc(total > 0 ? total : 1);
      if (hop->bounce != NULL) {
        uv__hop_gather(hop->bounce, total, req);
        hop->dup = fcntl(req->file, F_DUPFD_CLOEXEC, 3);
      }
      hop->req.file = hop->dup;
      hop->req.bufs = hop->req.bufsml;
      hop->req.bufs[0] = uv_buf_init(hop->bounce, total);
      hop->req.nbufs = 1;
    }
    hop->fs_work = fs_work;
    hop->id = id;
    hop->refs = 2;
    hop->work.data = hop;
    if ((req->fs_type != UV_FS_READ && req->fs_type != UV_FS_WRITE) ||
        (req->fs_type == UV_FS_READ && hop->bounce != NULL &&
         hop->req.off >= 0) ||
        (req->fs_type == UV_FS_WRITE && hop->dup >= 0)) {
      atomic_fetch_add_explicit(&uv__hop_count, 1, memory_order_relaxed);
      err = uv_priority_work(&hop->work, uv__hop_work, uv__hop_abandoned, 0);
    }
  }

  uv_mutex_lock(&uv__hop_mutex);
  s = uv__hop_stuck_find(id);
  assert(s != NULL && s->running > 0);
  s->running--;
  lands = 0;
  if (err == UV_ETIMEDOUT || err == UV_ECANCELED) {
    /* Abandoned: the mount is stuck until the executor lets go. Not for a
     * close, which may have been abandoned only because its section was
     * stopped already. A call that had started may still take effect. */
    lands = hop->ran && uv__hop_lands(req);
    hop->stuck = req->fs_type != UV_FS_CLOSE;
    s->abandoned += hop->stuck;
    uv__hop_stuck_put(s);
    uv__hop_unref(hop);
  } else {
    uv__hop_stuck_put(s);
  }
  uv_mutex_unlock(&uv__hop_mutex);

  if (err == UV_ETIMEDOUT || err == UV_ECANCELED) {
    /* A close's fd is gone, or goes once its executor runs: the caller
     * must not close it again (as after close(2)'s EINTR on Linux). */
    req->result = req->fs_type == UV_FS_CLOSE ? 0 : UV_ETIMEDOUT;
    if (lands)
      uv__sync_stop_mark_abandoned();
    return 1;
  }
  if (err == 0) {
    req->result = hop->req.result;
    req->statbuf = hop->req.statbuf;
    req->ptr = hop->req.ptr;
    if (req->ptr == &hop->req.statbuf)
      req->ptr = &req->statbuf;
    if (req->fs_type == UV_FS_READ) {
      if (req->result > 0)
        uv__hop_scatter(req, hop->bounce, req->result);
    } else {
      req->nbufs = hop->req.nbufs;  /* scandir's position */
    }
    if (req->fs_type == UV_FS_OPEN && req->result >= 0) {
      /* The fd's own mount (a symbolic link may have led elsewhere). */
      int fd_id = uv__hop_fdinfo_mount(req->result);
      uv_mutex_lock(&uv__hop_mutex);
      if (uv__hop_id_hangs(fd_id))
        uv__hop_fd_add(req->result, fd_id);
      uv_mutex_unlock(&uv__hop_mutex);
    }
    if (req->fs_type == UV_FS_READ && pos >= 0 && req->result > 0)
      lseek(req->file, pos + req->result, SEEK_SET);  /* as read(2) would */
    if (hop->dup >= 0)
      uv__close_nocheckstdio(hop->dup);
    uv__free(hop->bounce);
    uv__free(hop);
    return 1;
  }
  /* No executor (the cap on abandoned threads, no memory, no fd for the
   * duplicate): in place, as without the hop. */
  if (hop != NULL) {
    if (hop->dup >= 0)
      uv__close_nocheckstdio(hop->dup);
    uv__free(hop->bounce);
  }
  uv__free(hop);
  return 0;
}


/* uv__fs_hop() (threadpool-manager.h) found a hang-prone mount, or no
 * watcher: the path decides. */
int uv__fs_hop_slow(uv_fs_t* req, void (*fs_work)(struct uv__work* w)) {
  if (!uv__hop_run(req, fs_work))
    return 0;
  if (req->fs_type == UV_FS_READ) {
    /* As uv__fs_read() leaves a synchronous read, whatever its result:
     * req->bufs is the caller's array, never to be freed by
     * uv_fs_req_cleanup(). */
    req->bufs = NULL;
    req->nbufs = 0;
  } else if (req->fs_type == UV_FS_WRITE) {
    /* As uv__fs_write_all() leaves a write: uv_fs_write()'s copy of the
     * array is freed. */
    if (req->bufs != req->bufsml)
      uv__free(req->bufs);
    req->bufs = NULL;
    req->nbufs = 0;
  }
  return 1;
}

#else  /* !__linux__ */

_Atomic int uv__hop_any;
_Atomic int uv__hop_watching = 1;  /* no table: uv__fs_hop() returns 0 */

void uv__fs_hop_init(void) {
}


uint64_t uv__fs_hop_count(void) {
  return 0;
}


int uv__fs_hop_slow(uv_fs_t* req, void (*fs_work)(struct uv__work* w)) {
  (void) req;
  (void) fs_work;
  return 0;
}

#endif  /* __linux__ */
