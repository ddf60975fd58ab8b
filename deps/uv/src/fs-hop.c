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
 * Executor (Linux only; layer 5, the top: calls fs-timeout.c, sync-stop.c,
 * the Priority Executor, the mount table and the core; see
 * threadpool-core.h).
 *
 * A stopped section (uv/sync-stop.h) ends a blocking system call with the
 * interrupt signal. A call that waits for a network server or a FUSE daemon
 * (NFS hard mounts, a FUSE file system whose daemon stopped answering)
 * waits killably: no signal but a fatal one ends it, and the loop thread
 * would wait for as long as the server does. So a synchronous call of a
 * stoppable section whose path lies on such a mount (mount-table.c says
 * which) runs on an executor instead, and the section's stop abandons it
 * (priority-executor.c).
 *
 * Which calls (uv__hop_kind()): stat, lstat, access, readlink, realpath,
 * scandir, statfs and open (an fd that arrives after the caller left is
 * closed); then, on an fd such an open returned (`uv__hop_fds`, checked
 * against /proc/self/fdinfo's mnt_id, so that an fd closed elsewhere and
 * reused is not taken for it), fstat, read, write and close. The executor
 * runs a copy of the request with a copy of its path; a read reads into a
 * buffer of the hop's own, a write writes a copy of the data through a
 * duplicate of the fd: an abandoned hop owns everything its call touches
 * and releases it when the call returns. A close abandoned before it
 * started is done by the cleanup. Other calls that change the file system
 * stay in place.
 *
 * A hop:
 *
 *   new (the caller's) --uv_priority_work()--> on the executor
 *        --returned in time--> results copied back, freed by the caller
 *        --the section's stop, UV_ETIMEDOUT or UV_ECANCELED--> ABANDONED:
 *          shared (refs 2), freed by the last of caller and executor
 *
 * The executor starts no call whose caller gave up already: it sets `ran`
 * under uv__hop_mutex only if its stop is not set (uv__hop_work()), and the
 * caller, once it abandoned the hop (the stop set first), reads `ran` under
 * the same lock (uv__hop_leave(), the one place an abandoned call is judged):
 * a write or a creating open with `ran` 0 did nothing and never will; one
 * with `ran` 1 may still take effect, and the caller's section says so
 * (uv_sync_stop_call_abandoned()).
 *
 * A stuck mount (uv__hop_enter(), the one place a call is refused): while an
 * abandoned hop on a mount has not returned, a new call on that mount fails
 * at once with UV_ETIMEDOUT instead of abandoning another thread (what a
 * soft NFS mount returns when its server does not answer), except a close,
 * whose fd must go. The mount answers again once the stuck call returns. Per
 * mount: `running` (hops whose caller waits) and `abandoned` (abandoned hops
 * that have not returned); the entry goes when both are 0.
 *
 * Lock and ownership: uv__hop_mutex (a leaf of the lock table in
 * threadpool-core.h) guards the stuck list, the fd list, and each hop's
 * `ran` and, once abandoned, `refs`. A hop belongs to its caller until
 * uv_priority_work() returns; an abandoned hop is shared by its caller and
 * its executor (`refs`), and the last to let go frees it.
 */

#include "threadpool-manager.h"

#if defined(__linux__)

#include "unix/internal.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef O_TMPFILE
#define O_TMPFILE 0
#endif

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

/* What uv__hop_kind() says of a request. */
enum {
  UV__HOP_NONE,   /* in place */
  UV__HOP_PATH,   /* a path call that may hop */
  UV__HOP_FD      /* an fd call that may hop */
};

static uv_once_t uv__hop_once = UV_ONCE_INIT;
static uv__tpm_lock_t uv__hop_mutex;
static struct uv__hop_stuck* uv__hop_stuck;
static size_t uv__hop_nstuck;
static size_t uv__hop_stuck_size;
static struct uv__hop_fd* uv__hop_fds;
static size_t uv__hop_nfds;
static size_t uv__hop_fds_size;


static void uv__hop_atfork_prepare(void) {
  uv__tpm_lock_fork_prepare(&uv__hop_mutex);
}


static void uv__hop_atfork_parent(void) {
  uv__tpm_lock_fork_parent(&uv__hop_mutex);
}


static void uv__hop_atfork_child(void) {
  /* As slow-resource.c: held by the forking thread, start afresh. The
   * parent's abandoned hops are not the child's: their mounts are not stuck
   * here (the hops are leaked). */
  uv__tpm_lock_fork_child(&uv__hop_mutex);
  uv__hop_nstuck = 0;
}


static void uv__hop_init_once(void) {
  if (uv__tpm_lock_init(&uv__hop_mutex, UV__LOCK_HOP))
    abort();
  if (pthread_atfork(uv__hop_atfork_prepare,
                     uv__hop_atfork_parent,
                     uv__hop_atfork_child))
    abort();
}


/* Whether `req` may hop, and how its mount is found. */
static int uv__hop_kind(const uv_fs_t* req) {
  switch (req->fs_type) {
  case UV_FS_FSTAT:
  case UV_FS_CLOSE:
    return UV__HOP_FD;
  case UV_FS_READ:
  case UV_FS_WRITE:
    return req->nbufs > 0 ? UV__HOP_FD : UV__HOP_NONE;
  case UV_FS_STAT:
  case UV_FS_LSTAT:
  case UV_FS_ACCESS:
  case UV_FS_READLINK:
  case UV_FS_REALPATH:
  case UV_FS_SCANDIR:
  case UV_FS_STATFS:
  case UV_FS_OPEN:
    return req->path != NULL ? UV__HOP_PATH : UV__HOP_NONE;
  default:
    return UV__HOP_NONE;
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


/* With the lock held. */
static struct uv__hop_stuck* uv__hop_stuck_find(int id) {
  size_t i;

  UV__TPM_ASSERT_HELD(&uv__hop_mutex);
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

  UV__TPM_ASSERT_HELD(&uv__hop_mutex);
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
  UV__TPM_ASSERT_HELD(&uv__hop_mutex);
  assert(s >= uv__hop_stuck && s < uv__hop_stuck + uv__hop_nstuck);
  if (s->running == 0 && s->abandoned == 0)
    *s = uv__hop_stuck[--uv__hop_nstuck];
}


/* With the lock held: one side of an abandoned hop lets go. */
static void uv__hop_unref(struct uv__hop* hop) {
  struct uv__hop_stuck* s;

  UV__TPM_ASSERT_HELD(&uv__hop_mutex);
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

  UV__TPM_ASSERT_HELD(&uv__hop_mutex);
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

  UV__TPM_ASSERT_HELD(&uv__hop_mutex);
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

  UV__TPM_ASSERT_HELD(&uv__hop_mutex);
  e = uv__hop_fd_find(fd);
  if (e != NULL)
    *e = uv__hop_fds[--uv__hop_nfds];
}


/* The mount ID of an fd that a hop opened and that is still on that mount
 * (not closed elsewhere and reused), else -1. A close forgets the fd. */
static int uv__hop_fd_mount(const uv_fs_t* req) {
  struct uv__hop_fd* e;
  int id;

  uv__tpm_lock(&uv__hop_mutex);
  e = uv__hop_fd_find(req->file);
  id = e != NULL ? e->id : -1;
  if (id >= 0 && req->fs_type == UV_FS_CLOSE)
    uv__hop_fd_remove(req->file);
  uv__tpm_unlock(&uv__hop_mutex);
  if (id < 0 || uv__mounts_fd_id(req->file) == id)
    return id;
  uv__tpm_lock(&uv__hop_mutex);
  e = uv__hop_fd_find(req->file);
  if (e != NULL && e->id == id)
    uv__hop_fd_remove(req->file);
  uv__tpm_unlock(&uv__hop_mutex);
  return -1;
}


/* The hang-prone mount `req` would wait for, or -1: in place. */
static int uv__hop_target(const uv_fs_t* req, int kind) {
  if (kind == UV__HOP_PATH)
    return uv__mounts_path_id(req->path);
  return uv__hop_fd_mount(req);
}


/* On the executor. */
static void uv__hop_work(uv_priority_work_t* w) {
  struct uv__hop* hop;

  hop = w->data;
  /* Under the lock, against the caller's look at `ran` once it abandoned
   * the hop (it set our stop before): a call that had not started by then
   * never starts, so that the caller can tell "did nothing". */
  uv__tpm_lock(&uv__hop_mutex);
  hop->ran = !uv__tpm_stopping();
  uv__tpm_unlock(&uv__hop_mutex);
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
  uv__tpm_lock(&uv__hop_mutex);
  uv__hop_unref(hop);
  uv__tpm_unlock(&uv__hop_mutex);
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


/* Counts the caller's call as running on mount `id`. Returns 0, or
 * UV_ETIMEDOUT if the mount is stuck (never for a close: its fd must go), or
 * UV_ENOMEM (then in place). */
static int uv__hop_enter(const uv_fs_t* req, int id) {
  struct uv__hop_stuck* s;
  int stuck;

  uv__tpm_lock(&uv__hop_mutex);
  s = uv__hop_stuck_get(id);
  stuck = s != NULL && s->abandoned > 0 && req->fs_type != UV_FS_CLOSE;
  if (s != NULL && !stuck)
    s->running++;
  uv__tpm_unlock(&uv__hop_mutex);
  if (s == NULL)
    return UV_ENOMEM;
  return stuck ? UV_ETIMEDOUT : 0;
}


/* A read reads into the hop's own buffer, at the current position a pread()
 * there (*pos: the position, which the caller moves once the read returned
 * in time). An abandoned read moves nothing, and on an fd closed and reused
 * meanwhile reads nothing from a pipe or socket (ESPIPE). */
static void uv__hop_setup_read(struct uv__hop* hop,
                               const uv_fs_t* req,
                               int64_t* pos) {
  size_t total;

  total = uv__count_bufs(req->bufs, req->nbufs);
  if (req->off < 0) {
    *pos = lseek(req->file, 0, SEEK_CUR);  /* no request to the server */
    hop->req.off = *pos;
  }
  if (total > UV__HOP_BUF_MAX)
    total = UV__HOP_BUF_MAX;
  hop->bounce = uv__malloc(total > 0 ? total : 1);
  hop->req.bufs = hop->req.bufsml;
  hop->req.bufs[0] = uv_buf_init(hop->bounce, total);
  hop->req.nbufs = 1;
}


/* A write writes a copy of the data through an fd of the hop's own (a
 * duplicate, above stdio, closed by the executor after the write): a write
 * abandoned while it runs may still land, but never in another file that
 * reused the caller's fd number once the caller closed it. At the current
 * position, as in place: the duplicate shares it. */
static void uv__hop_setup_write(struct uv__hop* hop, const uv_fs_t* req) {
  size_t total;

  total = uv__count_bufs(req->bufs, req->nbufs);
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


/* The hop for `req` (NULL when memory is short): a copy of the request, of
 * its path, and for a read or a write of what it needs of its own. */
static struct uv__hop* uv__hop_new(const uv_fs_t* req,
                                   int kind,
                                   int id,
                                   void (*fs_work)(struct uv__work* w),
                                   int64_t* pos) {
  struct uv__hop* hop;
  size_t len;

  len = kind == UV__HOP_PATH ? strlen(req->path) : 0;
  hop = uv__calloc(1, sizeof(*hop) + len);
  if (hop == NULL)
    return NULL;
  hop->req = *req;
  hop->req.new_path = NULL;
  if (kind == UV__HOP_PATH) {
    memcpy(hop->path, req->path, len + 1);
    hop->req.path = hop->path;
  }
  if (req->fs_type == UV_FS_READ)
    uv__hop_setup_read(hop, req, pos);
  hop->dup = -1;
  if (req->fs_type == UV_FS_WRITE)
    uv__hop_setup_write(hop, req);
  hop->fs_work = fs_work;
  hop->id = id;
  hop->refs = 2;
  hop->work.data = hop;
  return hop;
}


/* Whether the hop has what it needs to run: a read its buffer and a
 * position, a write its buffer and its duplicate. */
static int uv__hop_ready(const uv_fs_t* req, const struct uv__hop* hop) {
  if (req->fs_type == UV_FS_READ)
    return hop->bounce != NULL && hop->req.off >= 0;
  if (req->fs_type == UV_FS_WRITE)
    return hop->dup >= 0;
  return 1;
}


/* The caller's call no longer runs on mount `id`. An abandoned hop makes
 * the mount stuck until its executor lets go (not a close, which may have
 * been abandoned only because its section was stopped already), and the
 * caller lets go of it. Returns nonzero if the abandoned call had started
 * and may still take effect. */
static int uv__hop_leave(const uv_fs_t* req,
                         struct uv__hop* hop,
                         int id,
                         int abandoned) {
  struct uv__hop_stuck* s;
  int lands;

  uv__tpm_lock(&uv__hop_mutex);
  s = uv__hop_stuck_find(id);
  assert(s != NULL && s->running > 0);
  s->running--;
  lands = 0;
  if (abandoned) {
    lands = hop->ran && uv__hop_lands(req);
    hop->stuck = req->fs_type != UV_FS_CLOSE;
    s->abandoned += hop->stuck;
  }
  uv__hop_stuck_put(s);
  if (abandoned)
    uv__hop_unref(hop);  /* After the put: it may put the entry itself. */
  uv__tpm_unlock(&uv__hop_mutex);
  return lands;
}


/* Returned in time: the caller's request gets the hop's results. */
static void uv__hop_copy_back(uv_fs_t* req,
                              const struct uv__hop* hop,
                              int64_t pos) {
  int fd_id;

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
    fd_id = uv__mounts_fd_id(req->result);
    if (uv__mounts_id_hangs(fd_id)) {
      uv__tpm_lock(&uv__hop_mutex);
      uv__hop_fd_add(req->result, fd_id);
      uv__tpm_unlock(&uv__hop_mutex);
    }
  }
  if (req->fs_type == UV_FS_READ && pos >= 0 && req->result > 0)
    lseek(req->file, pos + req->result, SEEK_SET);  /* as read(2) would */
}


/* A hop that is the caller's alone (not abandoned), or NULL. */
static void uv__hop_free(struct uv__hop* hop) {
  if (hop != NULL) {
    if (hop->dup >= 0)
      uv__close_nocheckstdio(hop->dup);
    uv__free(hop->bounce);
  }
  uv__free(hop);
}


/* Nonzero if the call was dealt with here (req->result set), 0 to run it
 * in place. */
static int uv__hop_run(uv_fs_t* req, void (*fs_work)(struct uv__work* w)) {
  struct uv__hop* hop;
  int64_t pos;
  int abandoned;
  int lands;
  int kind;
  int err;
  int id;

  if (!atomic_load_explicit(&uv__mounts_watched, memory_order_relaxed))
    uv__mounts_refresh();
  if (!atomic_load_explicit(&uv__mounts_any, memory_order_relaxed))
    return 0;
  kind = uv__hop_kind(req);
  if (kind == UV__HOP_NONE)
    return 0;
  uv_once(&uv__hop_once, uv__hop_init_once);
  id = uv__hop_target(req, kind);
  if (id < 0)
    return 0;  /* not on a hang-prone mount: in place */

  if (uv__tpm_stopping() && req->fs_type != UV_FS_CLOSE) {
    req->result = UV_EINTR;  /* stopped already: as a call stopped in place */
    return 1;
  }

  err = uv__hop_enter(req, id);
  if (err == UV_ENOMEM)
    return 0;  /* no memory: in place */
  if (err != 0) {
    req->result = err;  /* as a soft mount's unanswered call */
    return 1;
  }

  pos = -1;
  hop = uv__hop_new(req, kind, id, fs_work, &pos);
  err = UV_ENOMEM;
  if (hop != NULL && uv__hop_ready(req, hop)) {
    uv__tpm_count_hop();
    err = uv_priority_work(&hop->work, uv__hop_work, uv__hop_abandoned, 0);
  }

  abandoned = err == UV_ETIMEDOUT || err == UV_ECANCELED;
  lands = uv__hop_leave(req, hop, id, abandoned);
  if (abandoned) {
    /* A close's fd is gone, or goes once its executor runs: the caller
     * must not close it again (as after close(2)'s EINTR on Linux). */
    req->result = req->fs_type == UV_FS_CLOSE ? 0 : UV_ETIMEDOUT;
    if (lands)
      uv__sync_stop_mark_abandoned();
    return 1;
  }
  if (err == 0) {
    uv__hop_copy_back(req, hop, pos);
    uv__hop_free(hop);
    return 1;
  }
  /* No executor (the cap on abandoned threads, no memory, no fd for the
   * duplicate): in place, as without the hop. */
  uv__hop_free(hop);
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

int uv__fs_hop_slow(uv_fs_t* req, void (*fs_work)(struct uv__work* w)) {
  (void) req;
  (void) fs_work;
  return 0;
}

#endif  /* __linux__ */
