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
 * nodecure: the slow-resource blacklist for fs requests.
 *
 * An fs request that times out marks its resource (uv__slowres_mark(), from
 * uv__fs_done() on the loop): the fd for fd-based requests, the path for
 * path-based ones, and in both cases the device and inode when they can be
 * learnt without blocking (Linux: statx(AT_STATX_DONT_SYNC) of the fd, or of
 * an O_PATH descriptor opened with openat2(RESOLVE_CACHED), which resolves
 * from the dentry cache only). A hung NFS or FUSE server must not block the
 * loop a second time, so what cannot be learnt that way is not learnt.
 *
 * Later requests that would touch a blacklisted resource fail at once with
 * UV_ESLOWRESOURCE (uv__slowres_check(), from fs.c's POST): the same fd, the
 * same path, or another path to the same device and inode. Closing, removing
 * and renaming are never refused, so an application can always clean up;
 * uv_fs_close() also forgets the fd, whose number will be reused.
 *
 * Policy: permanent by default. A resource that held a worker for a whole
 * budget is adversarial or broken; probing it again costs another worker for
 * another budget, and a deterministic rule is easier to reason about and to
 * test. uv_fs_slow_resource_set_ttl() makes entries expire for applications
 * whose slow resources recover (an NFS server coming back);
 * uv_fs_slow_resource_clear() empties the list. At most 256 entries are kept:
 * the oldest goes first.
 */

#include "threadpool-manager.h"
#include "unix/internal.h"

#include <fcntl.h>
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

enum {
  UV__RES_NONE,
  UV__RES_FD,
  UV__RES_PATH,
  UV__RES_LPATH  /* the path itself, not what a symlink points at */
};

struct uv__slowres {
  struct uv__queue link;
  char* path;             /* NULL: none */
  uint64_t dev;
  uint64_t ino;
  uint64_t expires;       /* uv_hrtime(); 0: never */
  int fd;                 /* -1: none */
  int has_id;
};

_Atomic unsigned int uv__slowres_entries;
static _Atomic unsigned int uv__slowres_ids;  /* entries with an id */
static uv_once_t uv__slowres_once = UV_ONCE_INIT;
static uv_mutex_t uv__slowres_mutex;
static struct uv__queue uv__slowres_list = {
  &uv__slowres_list, &uv__slowres_list
};
static uint64_t uv__slowres_ttl;  /* ns; 0: permanent */
static uint64_t uv__slowres_marks;
static uint64_t uv__slowres_hits;
static uv_slow_resource_cb uv__slowres_cb;


static void uv__slowres_init_once(void) {
  if (uv_mutex_init(&uv__slowres_mutex))
    abort();
}


static void uv__slowres_init(void) {
  uv_once(&uv__slowres_once, uv__slowres_init_once);
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


/* Device and inode of an fd, without waiting for a remote server. */
static int uv__slowres_id_fd(int fd, uint64_t* dev, uint64_t* ino) {
#if defined(__linux__)
  struct uv__statx sx;

  if (uv__statx(fd,
                "",
                AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
                STATX_TYPE | STATX_INO,
                &sx))
    return -1;
  *dev = ((uint64_t) sx.stx_dev_major << 32) | sx.stx_dev_minor;
  *ino = sx.stx_ino;
  return 0;
#else
  return -1;  /* fstat() may block on a network file system. */
#endif
}


/* Device and inode behind a path, from the dentry cache only. */
static int uv__slowres_id_path(const char* path,
                               int nofollow,
                               uint64_t* dev,
                               uint64_t* ino) {
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
  err = uv__slowres_id_fd(fd, dev, ino);
  uv__close(fd);
  return err;
#else
  return -1;
#endif
}


/* With the lock held. */
static void uv__slowres_remove(struct uv__slowres* e) {
  uv__queue_remove(&e->link);
  if (e->has_id)
    atomic_fetch_sub_explicit(&uv__slowres_ids, 1, memory_order_relaxed);
  atomic_fetch_sub_explicit(&uv__slowres_entries, 1, memory_order_relaxed);
  uv__free(e->path);
  uv__free(e);
}


/* With the lock held. */
static void uv__slowres_expire(void) {
  struct uv__slowres* e;
  struct uv__queue* q;
  uint64_t now;

  if (uv__slowres_ttl == 0)
    return;

  now = uv_hrtime();
  q = uv__queue_next(&uv__slowres_list);
  while (q != &uv__slowres_list) {
    e = uv__queue_data(q, struct uv__slowres, link);
    q = uv__queue_next(q);
    if (e->expires != 0 && e->expires <= now)
      uv__slowres_remove(e);
  }
}


/* With the lock held. */
static struct uv__slowres* uv__slowres_find(int fd,
                                            const char* path,
                                            int has_id,
                                            uint64_t dev,
                                            uint64_t ino) {
  struct uv__slowres* e;
  struct uv__queue* q;

  uv__queue_foreach(q, &uv__slowres_list) {
    e = uv__queue_data(q, struct uv__slowres, link);
    if (fd >= 0 && e->fd == fd)
      return e;
    if (path != NULL && e->path != NULL && 0 == strcmp(e->path, path))
      return e;
    if (has_id && e->has_id && e->dev == dev && e->ino == ino)
      return e;
  }
  return NULL;
}


static void uv__slowres_forget_fd(int fd) {
  struct uv__slowres* e;

  uv__slowres_init();
  uv_mutex_lock(&uv__slowres_mutex);
  e = uv__slowres_find(fd, NULL, 0, 0, 0);
  if (e != NULL) {
    e->fd = -1;
    if (e->path == NULL && !e->has_id)
      uv__slowres_remove(e);
  }
  uv_mutex_unlock(&uv__slowres_mutex);
}


/* Is the resource of `fd` or `path` blacklisted? Resolves ids outside the
 * lock. */
static int uv__slowres_lookup(int fd, const char* path, int nofollow) {
  struct uv__slowres* e;
  uint64_t dev;
  uint64_t ino;
  int has_id;
  int found;

  has_id = 0;
  dev = 0;
  ino = 0;
  if (atomic_load_explicit(&uv__slowres_ids, memory_order_relaxed) != 0) {
    if (fd >= 0)
      has_id = 0 == uv__slowres_id_fd(fd, &dev, &ino);
    else
      has_id = 0 == uv__slowres_id_path(path, nofollow, &dev, &ino);
  }

  uv__slowres_init();
  uv_mutex_lock(&uv__slowres_mutex);
  uv__slowres_expire();
  found = 0;
  e = uv__slowres_find(fd, path, has_id, dev, ino);
  if (e != NULL) {
    found = 1;
    if (fd >= 0 && e->fd == fd && e->has_id &&
        (!has_id || e->dev != dev || e->ino != ino)) {
      /* The fd was closed behind our back and its number reused for another
       * file: forget the fd, keep the file. */
      e->fd = -1;
      found = 0;
      if (has_id && e->dev == dev && e->ino == ino)
        found = 1;
    }
  }
  uv_mutex_unlock(&uv__slowres_mutex);
  return found;
}


/* From POST in fs.c, only while the list is not empty. Returns
 * UV_ESLOWRESOURCE (also stored in req->result, with the request's copies
 * released) to refuse the request, 0 to let it run. */
int uv__slowres_check(uv_fs_t* req) {
  int found;
  int kind;

  if (req->fs_type == UV_FS_CLOSE) {
    uv__slowres_forget_fd(req->file);
    return 0;
  }

  kind = uv__slowres_kind(req);
  found = 0;
  if (kind == UV__RES_FD) {
    found = uv__slowres_lookup(req->file, NULL, 0);
    if (!found && req->fs_type == UV_FS_SENDFILE)
      found = uv__slowres_lookup(req->flags, NULL, 0);  /* in_fd */
  } else if (kind != UV__RES_NONE) {
    found = uv__slowres_lookup(-1, req->path, kind == UV__RES_LPATH);
    if (!found && req->fs_type == UV_FS_COPYFILE)
      found = uv__slowres_lookup(-1, req->new_path, 0);
  }

  if (!found)
    return 0;

  uv_mutex_lock(&uv__slowres_mutex);
  uv__slowres_hits++;
  uv_mutex_unlock(&uv__slowres_mutex);

  if (req->cb != NULL) {
    uv_fs_req_cleanup(req);  /* The copies POST's caller made. */
  } else {
    req->bufs = NULL;  /* The caller's, as after a synchronous read. */
    req->nbufs = 0;
  }
  req->result = UV_ESLOWRESOURCE;
  return UV_ESLOWRESOURCE;
}


/* From uv__fs_done(), on the loop, for a request that timed out. Its work
 * may still run: only fields it does not write are read. */
void uv__slowres_mark(uv_fs_t* req) {
  struct uv__slowres* e;
  struct uv__slowres* old;
  uv_slow_resource_cb cb;
  int kind;

  kind = uv__slowres_kind(req);
  if (kind == UV__RES_NONE)
    return;

  e = uv__calloc(1, sizeof(*e));
  if (e == NULL)
    return;
  e->fd = -1;
  if (kind == UV__RES_FD) {
    e->fd = req->file;
    e->has_id = 0 == uv__slowres_id_fd(req->file, &e->dev, &e->ino);
  } else {
    e->path = uv__strdup(req->path);
    e->has_id = 0 == uv__slowres_id_path(req->path,
                                         kind == UV__RES_LPATH,
                                         &e->dev,
                                         &e->ino);
  }

  uv__slowres_init();
  uv_mutex_lock(&uv__slowres_mutex);
  uv__slowres_expire();
  if (uv__slowres_ttl != 0)
    e->expires = uv_hrtime() + uv__slowres_ttl;

  old = uv__slowres_find(e->fd, e->path, e->has_id, e->dev, e->ino);
  if (old != NULL)
    uv__slowres_remove(old);  /* Replaced by the fresher entry. */
  if (atomic_load_explicit(&uv__slowres_entries, memory_order_relaxed) >=
      UV__SLOWRES_MAX) {
    old = uv__queue_data(uv__queue_head(&uv__slowres_list),
                         struct uv__slowres,
                         link);
    uv__slowres_remove(old);
  }

  uv__queue_insert_tail(&uv__slowres_list, &e->link);
  if (e->has_id)
    atomic_fetch_add_explicit(&uv__slowres_ids, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&uv__slowres_entries, 1, memory_order_relaxed);
  uv__slowres_marks++;
  cb = uv__slowres_cb;
  uv_mutex_unlock(&uv__slowres_mutex);

  if (cb != NULL)
    cb(req);
}


void uv__slowres_stats(uv_threadpool_stats_t* stats) {
  uv__slowres_init();
  uv_mutex_lock(&uv__slowres_mutex);
  uv__slowres_expire();
  stats->slow_resources =
      atomic_load_explicit(&uv__slowres_entries, memory_order_relaxed);
  stats->slow_resource_marks = uv__slowres_marks;
  stats->slow_resource_hits = uv__slowres_hits;
  uv_mutex_unlock(&uv__slowres_mutex);
}


int uv_fs_slow_resource_set_ttl(uint64_t ttl_ms) {
  uv__slowres_init();
  uv_mutex_lock(&uv__slowres_mutex);
  uv__slowres_ttl = ttl_ms * (uint64_t) 1000000;
  uv_mutex_unlock(&uv__slowres_mutex);
  return 0;
}


unsigned int uv_fs_slow_resource_count(void) {
  unsigned int count;

  uv__slowres_init();
  uv_mutex_lock(&uv__slowres_mutex);
  uv__slowres_expire();
  count = atomic_load_explicit(&uv__slowres_entries, memory_order_relaxed);
  uv_mutex_unlock(&uv__slowres_mutex);
  return count;
}


int uv_fs_slow_resource_check_fd(uv_file fd) {
  if (fd < 0)
    return 0;
  return uv__slowres_lookup(fd, NULL, 0);
}


int uv_fs_slow_resource_check_path(const char* path) {
  if (path == NULL)
    return 0;
  return uv__slowres_lookup(-1, path, 0);
}


void uv_fs_slow_resource_clear(void) {
  uv__slowres_init();
  uv_mutex_lock(&uv__slowres_mutex);
  while (!uv__queue_empty(&uv__slowres_list))
    uv__slowres_remove(uv__queue_data(uv__queue_head(&uv__slowres_list),
                                      struct uv__slowres,
                                      link));
  uv_mutex_unlock(&uv__slowres_mutex);
}


void uv_fs_slow_resource_set_cb(uv_slow_resource_cb cb) {
  uv__slowres_init();
  uv_mutex_lock(&uv__slowres_mutex);
  uv__slowres_cb = cb;
  uv_mutex_unlock(&uv__slowres_mutex);
}
