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
 * nodecure: the slow-resource list for fs requests (layer 1: calls the core
 * only; see threadpool-core.h).
 *
 * An fs request that times out marks its resource (uv__slowres_mark(), from
 * uv__fs_done() on the loop): the fd for fd-based requests, the path for
 * path-based ones, and in both cases the device and inode when they can be
 * learnt without blocking (Linux: statx(AT_STATX_DONT_SYNC) of the fd, or of
 * an O_PATH descriptor opened with openat2(RESOLVE_CACHED), which resolves
 * from the dentry cache only). A hung NFS or FUSE server must not block the
 * loop a second time, so what cannot be learnt that way is not learnt.
 *
 * Later threadpool requests that would touch a listed resource fail at once
 * with UV_ESLOWRESOURCE (uv__slowres_check(), from fs.c's POST): the same fd,
 * the same path, or another path to the same device and inode. The list
 * protects the threadpool: a synchronous request (no callback) is never
 * refused, and closing, removing and renaming never are, so an application
 * can always clean up; uv_fs_close() also forgets the fd, whose number will
 * be reused.
 *
 * Policy (uv__slowres_exempt(), uv__slowres_ttl()):
 *
 * - Never marked: the process's own stdio and what it shares a file with.
 *   Fds 0-2, any resource with the device and inode of what fds 0-2 refer to
 *   (learnt the same non-blocking way, at mark time: they can be dup2()ed),
 *   character devices (TTYs, /dev/null ...), paths under /dev/ and the fd
 *   links under /proc/ (their ids cannot be learnt from the dentry cache),
 *   and FIFOs and sockets whose timed-out request was on the write side
 *   (write, sendfile's out fd, fsync, fdatasync, ftruncate): that is a
 *   reader's back-pressure, not a resource the client chose. A read or an
 *   open of a FIFO is marked: the ReadDoS case (a FIFO or a slow file named
 *   by a client) still fails fast on the second access. Exemptions are
 *   counted.
 * - Entries expire with backoff: a resource refuses requests for the base
 *   TTL (30 s), doubled each time it is marked again after it expired, up to
 *   the maximum (1 h). An expired entry is remembered, with its strikes,
 *   until the maximum TTL has passed with no new mark, so a repeat offender
 *   gets the longer TTL. A base TTL of 0 makes entries permanent.
 *   A request that times out while its resource's entry is still active
 *   (it was running when the first one timed out) is the same episode: no
 *   strike, the entry's TTL restarts from now.
 * - Bounded: at most 256 entries, active and remembered. An active entry is
 *   never evicted to make room (filling the list must not free a real
 *   entry); the oldest remembered one is, else the new mark is dropped and
 *   counted.
 *
 * An entry:
 *
 *   (new) --mark--> ACTIVE --its TTL passes--> REMEMBERED --max TTL--> gone
 *                   |    ^ ^                        |
 *                   +----+ +----mark (a strike)-----+
 *   mark again (the same episode: no strike, the TTL restarts from now)
 *
 * A REMEMBERED entry may also be evicted (to make room) or cleared, an
 * ACTIVE one only cleared; an entry known by its fd alone goes when it
 * expires or its fd is closed.
 *
 * Where things are decided: whether a request is refused,
 * uv__slowres_check() (fs.c asks only for requests that would be timed:
 * uv__slowres_refused() in threadpool-manager.h); whether a timeout marks,
 * uv__slowres_exempt(); for how long, uv__slowres_ttl(); what expires,
 * uv__slowres_expire(), lazily, by whoever takes the lock after the
 * earliest deadline; what makes room, uv__slowres_evict().
 *
 * Lock and ownership: uv__slowres_mutex (a leaf of the lock table in
 * threadpool-core.h) guards the list, its entries and every static below;
 * uv__slowres_entries and uv__slowres_ids are written only with it held and
 * read without it only as hints (fs.c's gate; whether ids are worth
 * learning). Nothing that may block (learning ids, the mark callback) runs
 * with it held. The mutex is taken around fork() (pthread_atfork), so the
 * child inherits a consistent list, and made anew in the child. An entry's
 * path is its own copy.
 */

#include "slow-resource.h"
#include "unix/internal.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__linux__)
# include <sys/syscall.h>
# ifndef AT_STATX_DONT_SYNC
#  define AT_STATX_DONT_SYNC 0x4000
# endif
# ifndef STATX_TYPE
#  define STATX_TYPE 0x1U
# endif
# ifndef STATX_INO
#  define STATX_INO 0x100U
# endif
# ifndef __NR_openat2
#  define __NR_openat2 437
# endif
# define UV__RESOLVE_CACHED 0x20
#endif

#define UV__SLOWRES_MAX 256
#define UV__SLOWRES_NS_PER_MS ((uint64_t) 1000000)
#define UV__SLOWRES_NEVER ((uint64_t) -1)

enum {
  UV__RES_NONE,
  UV__RES_FD,
  UV__RES_PATH,
  UV__RES_LPATH  /* the path itself, not what a symlink points at */
};

/* What a request touches, or what an entry refuses. */
struct uv__slowres_key {
  const char* path;       /* NULL: none */
  uint64_t dev;
  uint64_t ino;
  unsigned int mode;      /* st_mode's type bits; meaningful with has_id */
  int fd;                 /* -1: none */
  int has_id;
};

struct uv__slowres {
  struct uv__queue link;  /* uv__slowres_list, least recently marked first */
  struct uv__slowres_key key;  /* key.path is owned */
  uint64_t expires;       /* uv_hrtime() when it stops refusing; 0: never */
  uint64_t forget;        /* when a remembered entry is dropped */
  unsigned int strikes;   /* episodes in which it was marked */
  int active;             /* refuses requests; else remembers its strikes */
};

_Atomic unsigned int uv__slowres_entries;  /* active entries */
static _Atomic unsigned int uv__slowres_ids;  /* active entries with an id */
static uv_once_t uv__slowres_once = UV_ONCE_INIT;
static uv__tpm_lock_t uv__slowres_mutex;
static struct uv__queue uv__slowres_list = {
  &uv__slowres_list, &uv__slowres_list
};
static unsigned int uv__slowres_total;  /* active and remembered */
static uint64_t uv__slowres_due = UV__SLOWRES_NEVER;  /* next expiry, or
                                                         earlier */
static uint64_t uv__slowres_base_ttl =  /* ns; 0: permanent */
    UV_FS_SLOW_RESOURCE_BASE_TTL_MS * UV__SLOWRES_NS_PER_MS;
static uint64_t uv__slowres_max_ttl =
    UV_FS_SLOW_RESOURCE_MAX_TTL_MS * UV__SLOWRES_NS_PER_MS;
static uint64_t uv__slowres_marks;
static uint64_t uv__slowres_hits;
static uint64_t uv__slowres_dropped;
static uint64_t uv__slowres_exempted;
static uv_slow_resource_cb uv__slowres_cb;


static void uv__slowres_atfork_prepare(void) {
  uv__tpm_lock_fork_prepare(&uv__slowres_mutex);
}


static void uv__slowres_atfork_parent(void) {
  uv__tpm_lock_fork_parent(&uv__slowres_mutex);
}


static void uv__slowres_atfork_child(void) {
  /* Held by the forking thread (above), whose id the child's thread does not
   * have: an error-checking mutex would refuse its unlock. Start afresh. */
  uv__tpm_lock_fork_child(&uv__slowres_mutex);
}


static void uv__slowres_init_once(void) {
  if (uv__tpm_lock_init(&uv__slowres_mutex, UV__LOCK_SLOWRES))
    abort();
  if (pthread_atfork(uv__slowres_atfork_prepare,
                     uv__slowres_atfork_parent,
                     uv__slowres_atfork_child))
    abort();
}


static void uv__slowres_init(void) {
  uv_once(&uv__slowres_once, uv__slowres_init_once);
}


/* Capped so that now + ttl + max ttl cannot overflow. */
static uint64_t uv__slowres_ms_to_ns(uint64_t ms) {
  if (ms > UINT64_MAX / 4 / UV__SLOWRES_NS_PER_MS)
    return UINT64_MAX / 4;
  return ms * UV__SLOWRES_NS_PER_MS;
}


static int uv__slowres_kind(const uv_fs_t* req) {
  switch (req->fs_type) {
  case UV_FS_READ:
  case UV_FS_WRITE:
  case UV_FS_SENDFILE:
  case UV_FS_FSTAT:
  case UV_FS_FSYNC:
  case UV_FS_FDATASYNC:
  case UV_FS_FTRUNCATE:
  case UV_FS_FUTIME:
  case UV_FS_FCHMOD:
  case UV_FS_FCHOWN:
    return UV__RES_FD;
  case UV_FS_OPEN:
  case UV_FS_STAT:
  case UV_FS_ACCESS:
  case UV_FS_CHMOD:
  case UV_FS_CHOWN:
  case UV_FS_UTIME:
  case UV_FS_READLINK:
  case UV_FS_REALPATH:
  case UV_FS_SCANDIR:
  case UV_FS_OPENDIR:
  case UV_FS_STATFS:
  case UV_FS_COPYFILE:
    return UV__RES_PATH;
  case UV_FS_LSTAT:
  case UV_FS_LCHOWN:
  case UV_FS_LUTIME:
    return UV__RES_LPATH;
  default:
    /* close, unlink, rmdir, rename, mkdir, mkdtemp, mkstemp, link, symlink,
     * readdir, closedir: never refused, never marked. */
    return UV__RES_NONE;
  }
}


/* Requests that wait for a reader when they block (req->file is sendfile's
 * out fd). */
static int uv__slowres_write_side(const uv_fs_t* req) {
  switch (req->fs_type) {
  case UV_FS_WRITE:
  case UV_FS_SENDFILE:
  case UV_FS_FSYNC:
  case UV_FS_FDATASYNC:
  case UV_FS_FTRUNCATE:
    return 1;
  default:
    return 0;
  }
}


/* Device, inode and type of an fd, without waiting for a remote server. */
static int uv__slowres_id_fd(int fd, struct uv__slowres_key* k) {
#if defined(__linux__)
  struct uv__statx sx;

  if (uv__statx(fd,
                "",
                AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
                STATX_TYPE | STATX_INO,
                &sx))
    return -1;
  k->dev = ((uint64_t) sx.stx_dev_major << 32) | sx.stx_dev_minor;
  k->ino = sx.stx_ino;
  k->mode = sx.stx_mode & S_IFMT;
  return 0;
#else
  return -1;  /* fstat() may block on a network file system. */
#endif
}


/* Device, inode and type behind a path, from the dentry cache only. */
static int uv__slowres_id_path(const char* path,
                               int nofollow,
                               struct uv__slowres_key* k) {
#if defined(__linux__)
  struct {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
  } how;
  int err;
  int fd;

  if (path == NULL)
    return -1;
  memset(&how, 0, sizeof(how));
  how.flags = O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0);
  how.resolve = UV__RESOLVE_CACHED;
  fd = syscall(__NR_openat2, AT_FDCWD, path, &how, sizeof(how));
  if (fd < 0)
    return -1;
  err = uv__slowres_id_fd(fd, k);
  uv__close(fd);
  return err;
#else
  return -1;
#endif
}


/* The key of an fd or a path, its id learnt if `want_id`. */
static void uv__slowres_key_init(struct uv__slowres_key* k,
                                 int fd,
                                 const char* path,
                                 int nofollow,
                                 int want_id) {
  memset(k, 0, sizeof(*k));
  k->fd = fd;
  k->path = path;
  if (!want_id)
    return;
  if (fd >= 0)
    k->has_id = 0 == uv__slowres_id_fd(fd, k);
  else
    k->has_id = 0 == uv__slowres_id_path(path, nofollow, k);
}


/* Paths whose ids the dentry cache cannot give (/dev/stdin, /dev/fd/N and
 * /proc/<pid>/fd/N are "magic" links) or that name devices. */
static int uv__slowres_device_path(const char* path) {
  if (0 == strncmp(path, "/dev/", 5))
    return 1;
  return 0 == strncmp(path, "/proc/", 6) && strstr(path, "/fd/") != NULL;
}


/* Is the resource one that is never marked? See the policy at the top. */
static int uv__slowres_exempt(const uv_fs_t* req,
                              const struct uv__slowres_key* k) {
  struct uv__slowres_key std;
  int fd;

  if (k->fd >= 0 && k->fd <= STDERR_FILENO)
    return 1;
  if (k->path != NULL && uv__slowres_device_path(k->path))
    return 1;
  if (!k->has_id)
    return 0;
  if (S_ISCHR(k->mode))
    return 1;
  if ((S_ISFIFO(k->mode) || S_ISSOCK(k->mode)) && uv__slowres_write_side(req))
    return 1;
  for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
    if (0 == uv__slowres_id_fd(fd, &std) &&
        std.dev == k->dev &&
        std.ino == k->ino)
      return 1;
  return 0;
}


/* Does entry `e` name the resource of `k`? With the lock held. */
static int uv__slowres_same(const struct uv__slowres* e,
                            const struct uv__slowres_key* k) {
  const struct uv__slowres_key* ek;

  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  ek = &e->key;
  if (k->has_id && ek->has_id && ek->dev == k->dev && ek->ino == k->ino)
    return 1;
  if (k->path != NULL && ek->path != NULL && 0 == strcmp(ek->path, k->path))
    return 1;
  if (k->fd >= 0 && ek->fd == k->fd)
    return !(k->has_id && ek->has_id);  /* Else the number was reused. */
  return 0;
}


/* The time-to-live of an entry marked `strikes` times: the base TTL doubled
 * per earlier strike, up to the maximum; 0 = permanent. With the lock held. */
static uint64_t uv__slowres_ttl(unsigned int strikes) {
  uint64_t ttl;

  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  assert(strikes >= 1);
  ttl = uv__slowres_base_ttl;
  if (ttl == 0)
    return 0;
  while (--strikes > 0 && ttl < uv__slowres_max_ttl)
    ttl *= 2;
  return ttl < uv__slowres_max_ttl ? ttl : uv__slowres_max_ttl;
}


/* With the lock held. When `e` next changes state. */
static uint64_t uv__slowres_deadline(const struct uv__slowres* e) {
  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  if (!e->active)
    return e->forget;
  return e->expires != 0 ? e->expires : UV__SLOWRES_NEVER;
}


/* With the lock held. */
static void uv__slowres_count_active(const struct uv__slowres* e, int delta) {
  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  assert(e->active);
  if (e->key.has_id)
    atomic_fetch_add_explicit(&uv__slowres_ids, delta, memory_order_relaxed);
  atomic_fetch_add_explicit(&uv__slowres_entries, delta, memory_order_relaxed);
}


/* With the lock held. */
static void uv__slowres_remove(struct uv__slowres* e) {
  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  assert(uv__slowres_total > 0);
  uv__queue_remove(&e->link);
  if (e->active)
    uv__slowres_count_active(e, -1);
  uv__slowres_total--;
  uv__free((char*) e->key.path);
  uv__free(e);
}


/* With the lock held. An expired entry stops refusing requests and only
 * remembers its strikes; what it knew only by fd number cannot be matched
 * reliably any more, and goes (returns 1: `e` is freed). */
static int uv__slowres_deactivate(struct uv__slowres* e) {
  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  uv__slowres_count_active(e, -1);
  e->active = 0;
  e->key.fd = -1;
  if (e->key.path != NULL || e->key.has_id)
    return 0;
  uv__slowres_remove(e);
  return 1;
}


/* With the lock held. Ends what is due; a no-op until the earliest
 * deadline, which is recomputed on the way. */
static void uv__slowres_expire(uint64_t now) {
  struct uv__slowres* e;
  struct uv__queue* q;
  uint64_t due;

  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  if (now < uv__slowres_due)
    return;

  due = UV__SLOWRES_NEVER;
  q = uv__queue_next(&uv__slowres_list);
  while (q != &uv__slowres_list) {
    e = uv__queue_data(q, struct uv__slowres, link);
    q = uv__queue_next(q);
    if (e->active && e->expires != 0 && e->expires <= now &&
        uv__slowres_deactivate(e))
      continue;
    if (!e->active && e->forget <= now) {
      uv__slowres_remove(e);
      continue;
    }
    if (uv__slowres_deadline(e) < due)
      due = uv__slowres_deadline(e);
  }
  uv__slowres_due = due;
}


/* With the lock held. The active entry for `k`, else a remembered one. */
static struct uv__slowres* uv__slowres_find(const struct uv__slowres_key* k) {
  struct uv__slowres* remembered;
  struct uv__slowres* e;
  struct uv__queue* q;

  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  remembered = NULL;
  uv__queue_foreach(q, &uv__slowres_list) {
    e = uv__queue_data(q, struct uv__slowres, link);
    if (!uv__slowres_same(e, k))
      continue;
    if (e->active)
      return e;
    if (remembered == NULL)
      remembered = e;
  }
  return remembered;
}


/* With the lock held. Makes room by dropping the least recently marked
 * remembered entry; active ones are never evicted. */
static int uv__slowres_evict(void) {
  struct uv__slowres* e;
  struct uv__queue* q;

  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  uv__queue_foreach(q, &uv__slowres_list) {
    e = uv__queue_data(q, struct uv__slowres, link);
    if (!e->active) {
      uv__slowres_remove(e);
      return 0;
    }
  }
  return -1;
}


static void uv__slowres_forget_fd(int fd) {
  struct uv__slowres* e;
  struct uv__queue* q;

  uv__slowres_init();
  uv__tpm_lock(&uv__slowres_mutex);
  q = uv__queue_next(&uv__slowres_list);
  while (q != &uv__slowres_list) {
    e = uv__queue_data(q, struct uv__slowres, link);
    q = uv__queue_next(q);
    if (e->key.fd != fd)
      continue;
    e->key.fd = -1;
    if (e->key.path == NULL && !e->key.has_id)
      uv__slowres_remove(e);
  }
  uv__tpm_unlock(&uv__slowres_mutex);
}


/* Does an active entry refuse the resource of `fd` or `path`? Learns ids
 * outside the lock, and only while an active entry has one. */
static int uv__slowres_lookup(int fd,
                              const char* path,
                              int nofollow,
                              int count_hit) {
  struct uv__slowres_key k;
  struct uv__slowres* e;
  struct uv__queue* q;
  int found;

  uv__slowres_key_init(&k,
                       fd,
                       path,
                       nofollow,
                       atomic_load_explicit(&uv__slowres_ids,
                                            memory_order_relaxed) != 0);

  uv__slowres_init();
  uv__tpm_lock(&uv__slowres_mutex);
  uv__slowres_expire(uv_hrtime());
  found = 0;
  uv__queue_foreach(q, &uv__slowres_list) {
    e = uv__queue_data(q, struct uv__slowres, link);
    if (!e->active)
      continue;
    if (fd >= 0 && e->key.fd == fd && e->key.has_id &&
        !(k.has_id && e->key.dev == k.dev && e->key.ino == k.ino)) {
      /* The fd was closed behind our back and its number reused for another
       * file (or is closed): forget the fd, keep the file. */
      e->key.fd = -1;
    }
    if (uv__slowres_same(e, &k)) {
      found = 1;
      break;
    }
  }
  if (found && count_hit)
    uv__slowres_hits++;
  uv__tpm_unlock(&uv__slowres_mutex);
  return found;
}


/* From POST in fs.c, only while an entry is active. Returns
 * UV_ESLOWRESOURCE (also stored in req->result, with the request's copies
 * released) to refuse the request, 0 to let it run. */
int uv__slowres_check(uv_fs_t* req) {
  int found;
  int kind;

  if (req->fs_type == UV_FS_CLOSE) {
    uv__slowres_forget_fd(req->file);
    return 0;
  }

  /* The list protects the threadpool; a synchronous caller only blocks
   * itself (and is timed by its own means). */
  if (req->cb == NULL)
    return 0;

  kind = uv__slowres_kind(req);
  found = 0;
  if (kind == UV__RES_FD) {
    found = uv__slowres_lookup(req->file, NULL, 0, 1);
    if (!found && req->fs_type == UV_FS_SENDFILE)
      found = uv__slowres_lookup(req->flags, NULL, 0, 1);  /* in_fd */
  } else if (kind != UV__RES_NONE) {
    found = uv__slowres_lookup(-1, req->path, kind == UV__RES_LPATH, 1);
    if (!found && req->fs_type == UV_FS_COPYFILE)
      found = uv__slowres_lookup(-1, req->new_path, 0, 1);
  }

  if (!found)
    return 0;

  uv_fs_req_cleanup(req);  /* The copies POST's caller made. */
  req->result = UV_ESLOWRESOURCE;
  return UV_ESLOWRESOURCE;
}


/* With the lock held. Marks `e` again, or for the first time: a strike if
 * it was not active, its TTL restarted from `now` either way. */
static void uv__slowres_strike(struct uv__slowres* e, uint64_t now) {
  uint64_t ttl;

  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  if (!e->active) {
    e->active = 1;
    e->strikes++;
    e->expires = 0;
    uv__slowres_count_active(e, 1);
  } else if (e->expires == 0) {
    return;  /* Permanent stays permanent. */
  }

  ttl = uv__slowres_ttl(e->strikes);
  if (ttl == 0) {
    e->expires = 0;
    e->forget = UV__SLOWRES_NEVER;
  } else if (now + ttl > e->expires) {
    e->expires = now + ttl;
    e->forget = e->expires + uv__slowres_max_ttl;
  }
  if (uv__slowres_deadline(e) < uv__slowres_due)
    uv__slowres_due = uv__slowres_deadline(e);
}


/* With the lock held. The fresh mark's identity wins, except for what it
 * lacks: an fd mark keeps the entry's path, a mark whose id is unknown its
 * id. Takes `k`'s path if it uses it. */
static void uv__slowres_merge(struct uv__slowres* e,
                              struct uv__slowres_key* k) {
  UV__TPM_ASSERT_HELD(&uv__slowres_mutex);
  if (e->active)
    uv__slowres_count_active(e, -1);
  if (k->fd >= 0)
    e->key.fd = k->fd;
  if (k->path != NULL) {
    uv__free((char*) e->key.path);
    e->key.path = k->path;
    k->path = NULL;
  }
  if (k->has_id) {
    e->key.has_id = 1;
    e->key.dev = k->dev;
    e->key.ino = k->ino;
    e->key.mode = k->mode;
  }
  if (e->active)
    uv__slowres_count_active(e, 1);
}


/* From uv__fs_done(), on the loop, for a request that timed out. Its work
 * may still run: only fields it does not write are read. */
void uv__slowres_mark(uv_fs_t* req) {
  struct uv__slowres_key k;
  struct uv__slowres* fresh;
  struct uv__slowres* e;
  uv_slow_resource_cb cb;
  uint64_t now;
  int kind;

  if (req->result == UV_EPOOLSTALLED)
    return;  /* It never ran: it says nothing of its resource. */
  kind = uv__slowres_kind(req);
  if (kind == UV__RES_NONE)
    return;

  uv__slowres_key_init(&k,
                       kind == UV__RES_FD ? req->file : -1,
                       kind == UV__RES_FD ? NULL : req->path,
                       kind == UV__RES_LPATH,
                       1);
  uv__slowres_init();
  if (uv__slowres_exempt(req, &k)) {
    uv__tpm_lock(&uv__slowres_mutex);
    uv__slowres_exempted++;
    uv__tpm_unlock(&uv__slowres_mutex);
    return;
  }

  /* Allocated before taking the lock, used only for a new resource. */
  if (k.path != NULL && (k.path = uv__strdup(k.path)) == NULL)
    return;
  fresh = uv__calloc(1, sizeof(*fresh));
  if (fresh == NULL) {
    uv__free((char*) k.path);
    return;
  }

  uv__tpm_lock(&uv__slowres_mutex);
  now = uv_hrtime();
  uv__slowres_expire(now);
  e = uv__slowres_find(&k);
  if (e != NULL) {
    uv__slowres_merge(e, &k);
    uv__queue_remove(&e->link);  /* Becomes the most recently marked. */
  } else if (uv__slowres_total >= UV__SLOWRES_MAX && uv__slowres_evict()) {
    uv__slowres_dropped++;
    uv__tpm_unlock(&uv__slowres_mutex);
    uv__free((char*) k.path);
    uv__free(fresh);
    return;
  } else {
    e = fresh;
    fresh = NULL;
    e->key = k;
    k.path = NULL;
    uv__slowres_total++;
  }
  assert(uv__slowres_total <= UV__SLOWRES_MAX);

  uv__queue_insert_tail(&uv__slowres_list, &e->link);
  uv__slowres_strike(e, now);
  uv__slowres_marks++;
  cb = uv__slowres_cb;
  uv__tpm_unlock(&uv__slowres_mutex);

  uv__free((char*) k.path);
  uv__free(fresh);
  if (cb != NULL)
    cb(req);
}


void uv__slowres_stats(uv_threadpool_stats_t* stats) {
  uv__slowres_init();
  uv__tpm_lock(&uv__slowres_mutex);
  uv__slowres_expire(uv_hrtime());
  stats->slow_resources =
      atomic_load_explicit(&uv__slowres_entries, memory_order_relaxed);
  stats->slow_resource_marks = uv__slowres_marks;
  stats->slow_resource_hits = uv__slowres_hits;
  stats->slow_resource_dropped = uv__slowres_dropped;
  stats->slow_resource_exempt = uv__slowres_exempted;
  uv__tpm_unlock(&uv__slowres_mutex);
}


int uv_fs_slow_resource_set_policy(uint64_t base_ttl_ms, uint64_t max_ttl_ms) {
  if (base_ttl_ms != 0 && max_ttl_ms < base_ttl_ms)
    return UV_EINVAL;

  uv__slowres_init();
  uv__tpm_lock(&uv__slowres_mutex);
  uv__slowres_base_ttl = uv__slowres_ms_to_ns(base_ttl_ms);
  uv__slowres_max_ttl = base_ttl_ms == 0 ? 0 : uv__slowres_ms_to_ns(max_ttl_ms);
  uv__tpm_unlock(&uv__slowres_mutex);
  return 0;
}


int uv_fs_slow_resource_set_ttl(uint64_t ttl_ms) {
  return uv_fs_slow_resource_set_policy(ttl_ms, ttl_ms);
}


unsigned int uv_fs_slow_resource_count(void) {
  unsigned int count;

  uv__slowres_init();
  uv__tpm_lock(&uv__slowres_mutex);
  uv__slowres_expire(uv_hrtime());
  count = atomic_load_explicit(&uv__slowres_entries, memory_order_relaxed);
  uv__tpm_unlock(&uv__slowres_mutex);
  return count;
}


int uv_fs_slow_resource_check_fd(uv_file fd) {
  if (fd < 0)
    return 0;
  return uv__slowres_lookup(fd, NULL, 0, 0);
}


int uv_fs_slow_resource_check_path(const char* path) {
  if (path == NULL)
    return 0;
  return uv__slowres_lookup(-1, path, 0, 0);
}


void uv_fs_slow_resource_foreach(void (*cb)(const uv_fs_slow_resource_t* e,
                                            void* arg),
                                 void* arg) {
  uv_fs_slow_resource_t r;
  struct uv__slowres* e;
  struct uv__queue* q;
  uint64_t now;

  uv__slowres_init();
  uv__tpm_lock(&uv__slowres_mutex);
  now = uv_hrtime();
  uv__slowres_expire(now);
  uv__queue_foreach(q, &uv__slowres_list) {
    e = uv__queue_data(q, struct uv__slowres, link);
    if (!e->active)
      continue;
    memset(&r, 0, sizeof(r));
    r.fd = e->key.fd;
    r.path = e->key.path;
    r.dev = e->key.dev;
    r.ino = e->key.ino;
    r.has_id = e->key.has_id;
    r.strikes = e->strikes;
    r.expires_in_ms = 0;
    if (e->expires != 0) {
      assert(e->expires > now);
      /* Rounded up: 0 means permanent. */
      r.expires_in_ms = (e->expires - now + UV__SLOWRES_NS_PER_MS - 1) /
                        UV__SLOWRES_NS_PER_MS;
    }
    cb(&r, arg);
  }
  uv__tpm_unlock(&uv__slowres_mutex);
}


void uv_fs_slow_resource_clear(void) {
  uv__slowres_init();
  uv__tpm_lock(&uv__slowres_mutex);
  while (!uv__queue_empty(&uv__slowres_list))
    uv__slowres_remove(uv__queue_data(uv__queue_head(&uv__slowres_list),
                                      struct uv__slowres,
                                      link));
  assert(uv__slowres_total == 0);
  uv__slowres_due = UV__SLOWRES_NEVER;
  uv__tpm_unlock(&uv__slowres_mutex);
}


void uv_fs_slow_resource_set_cb(uv_slow_resource_cb cb) {
  uv__slowres_init();
  uv__tpm_lock(&uv__slowres_mutex);
  uv__slowres_cb = cb;
  uv__tpm_unlock(&uv__slowres_mutex);
}
