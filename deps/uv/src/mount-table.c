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
 * nodecure: the mount table (Linux only; layer 1: calls the core only, see
 * threadpool-core.h). Which mounts are hang-prone, for fs-hop.c.
 *
 * Which mounts: the longest mount point of /proc/self/mountinfo that is a
 * prefix of the absolute, lexically normalised path (a relative path is
 * taken from the working directory) decides (uv__mounts_path_id(), the one
 * place); its file system type is one of uv__mounts_fstypes, a FUSE type or
 * one of $UV_FS_HANG_PRONE_TYPES (a comma-separated list, read once). A
 * symbolic link elsewhere that leads onto such a mount is not seen. The
 * table keeps only the hang-prone mounts and those mounted below one of them
 * (which a longer prefix must win over), so that nothing is looked up while
 * no hang-prone mount exists (uv__mounts_any).
 *
 * One thread (libuv-mounts) waits for changes of the mount table (POLLPRI)
 * and reads it again; it starts with the first stop that is registered
 * (uv__mounts_init(), from sync-stop.c), so that a process without
 * --event-loop-timeout never has it. A forked child has no watcher
 * (uv__mounts_watched is 0): fs-hop.c then asks uv__mounts_refresh(), which
 * polls its own mountinfo.
 *
 * Lock and ownership (the lock table is in threadpool-core.h):
 * uv__mounts_load_mutex lets one thread at a time read mountinfo, and is
 * taken before uv__mounts_mutex, a leaf, which guards the published table.
 * A table, once published, is never changed, only replaced under it; the
 * old one is freed after that, still under uv__mounts_load_mutex, when no
 * reader can hold it (readers copy what they need under uv__mounts_mutex).
 * The watcher thread owns the mountinfo fd (a forked child, which has no
 * watcher, its own).
 */

#include "mount-table.h"

#if defined(__linux__)

#include "unix/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct uv__mount {
  char* dir;                      /* unescaped mount point */
  size_t len;
  int id;                         /* mountinfo's mount ID */
  int hangs;                      /* its calls may wait for a server */
};

/* The mounts that matter: the hang-prone ones and those mounted below one
 * of them. */
struct uv__mount_table {
  size_t n;
  struct uv__mount* mounts;
  char* strings;
};

static const char* const uv__mounts_fstypes[] = {
  "fuse", "fuseblk", "virtiofs", "nfs", "nfs4", "cifs", "smb3", "smbfs",
  "9p", "ceph", "glusterfs", "afs", "coda", "lustre", "gfs2", "ocfs2",
  "orangefs", "pvfs2", "beegfs", "gpfs", "davfs", "ncpfs"
};

static uv_once_t uv__mounts_once = UV_ONCE_INIT;
static uv__tpm_lock_t uv__mounts_mutex;
static uv__tpm_lock_t uv__mounts_load_mutex;
_Atomic int uv__mounts_any;
_Atomic int uv__mounts_watched;
static struct uv__mount_table* uv__mounts_table;
static const char* uv__mounts_extra;  /* $UV_FS_HANG_PRONE_TYPES */
static int uv__mounts_fd = -1;
static uv_thread_t uv__mounts_thread;


static int uv__mounts_fstype_hangs(const char* type) {
  const char* p;
  size_t len;
  size_t i;

  if (strncmp(type, "fuse.", 5) == 0)
    return 1;
  for (i = 0; i < ARRAY_SIZE(uv__mounts_fstypes); i++)
    if (strcmp(type, uv__mounts_fstypes[i]) == 0)
      return 1;
  /* More types, comma-separated: a block device served over the network
   * (NBD, iSCSI) hangs as an NFS mount does. */
  len = strlen(type);
  for (p = uv__mounts_extra; p != NULL && *p != '\0'; p += strcspn(p, ", ")) {
    p += strspn(p, ", ");
    if (strncmp(p, type, len) == 0 && strchr(", ", p[len]) != NULL)
      return 1;  /* (strchr() also finds the terminating NUL) */
  }
  return 0;
}


/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void uv__mounts_unescape(char* s) {
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


static int uv__mounts_below(const char* path, size_t len, const char* dir,
                            size_t dlen) {
  if (dlen == 1)
    return 1;  /* "/" */
  return len >= dlen &&
         memcmp(path, dir, dlen) == 0 &&
         (path[dlen] == '/' || path[dlen] == '\0');
}


static void uv__mounts_table_free(struct uv__mount_table* t) {
  if (t == NULL)
    return;
  uv__free(t->mounts);
  uv__free(t->strings);
  uv__free(t);
}


/* One line of mountinfo, "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 -
 * ext3 /dev/root rw": field 5 is the mount point; the type follows the "-"
 * separator. Returns 0 and fills `m` (its dir in the line, unescaped), or
 * -1 for a line that does not have them. */
static int uv__mounts_parse_line(char* line, struct uv__mount* m) {
  char* field[6];
  char* type;
  char* save;
  char* p;
  int nfield;

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
    return -1;
  uv__mounts_unescape(field[4]);
  m->dir = field[4];
  m->len = strlen(field[4]);
  m->id = atoi(field[0]);
  m->hangs = uv__mounts_fstype_hangs(type);
  return 0;
}


/* Every mount of mountinfo (`buf`, NUL-terminated, modified: the mounts
 * point into it), their number in *n; NULL when memory is short. */
static struct uv__mount* uv__mounts_parse_all(char* buf,
                                              size_t size,
                                              size_t* n) {
  struct uv__mount* grown;
  struct uv__mount* all;
  struct uv__mount m;
  size_t nall;
  size_t cap;
  char* line;
  char* next;

  cap = 16;
  nall = 0;
  all = uv__malloc(cap * sizeof(*all));
  if (all == NULL)
    return NULL;

  for (line = buf; line < buf + size && *line != '\0'; line = next) {
    next = strchr(line, '\n');
    if (next != NULL)
      *next++ = '\0';
    else
      next = line + strlen(line);
    if (uv__mounts_parse_line(line, &m))
      continue;
    if (nall == cap) {
      grown = uv__realloc(all, 2 * cap * sizeof(*all));
      if (grown == NULL) {
        uv__free(all);
        return NULL;
      }
      all = grown;
      cap *= 2;
    }
    all[nall++] = m;
  }
  *n = nall;
  return all;
}


/* Keeps, in place, the hang-prone mounts and every mount below one of them:
 * against a copy of the hang-prone ones (few), so that a host with
 * thousands of mounts that change often does not pay n * n comparisons a
 * reload. Their number in *kept; -1 when memory is short. */
static int uv__mounts_keep(struct uv__mount* all, size_t nall, size_t* kept) {
  struct uv__mount* hangs;
  size_t nhangs;
  size_t i;
  size_t j;
  size_t k;
  int keep;

  for (i = 0, nhangs = 0; i < nall; i++)
    nhangs += all[i].hangs;
  hangs = uv__malloc((nhangs > 0 ? nhangs : 1) * sizeof(*hangs));
  if (hangs == NULL)
    return -1;
  for (i = 0, k = 0; i < nall; i++)
    if (all[i].hangs)
      hangs[k++] = all[i];
  for (i = 0, j = 0; i < nall; i++) {
    keep = all[i].hangs;
    for (k = 0; !keep && k < nhangs; k++)
      keep = uv__mounts_below(all[i].dir, all[i].len,
                              hangs[k].dir, hangs[k].len);
    if (keep)
      all[j++] = all[i];
  }
  uv__free(hangs);
  *kept = j;
  return 0;
}


/* The mount points of `t` point into the buffer read: copies them into
 * t->strings. */
static int uv__mounts_copy_strings(struct uv__mount_table* t) {
  size_t total;
  size_t i;
  char* p;

  total = 0;
  for (i = 0; i < t->n; i++)
    total += t->mounts[i].len + 1;
  t->strings = uv__malloc(total > 0 ? total : 1);
  if (t->strings == NULL)
    return -1;
  p = t->strings;
  for (i = 0; i < t->n; i++) {
    memcpy(p, t->mounts[i].dir, t->mounts[i].len + 1);
    t->mounts[i].dir = p;
    p += t->mounts[i].len + 1;
  }
  return 0;
}


/* Parses mountinfo (`buf`, NUL-terminated, modified). Returns the table of
 * the mounts that matter, or NULL when memory is short. */
static struct uv__mount_table* uv__mounts_parse(char* buf, size_t size) {
  struct uv__mount_table* t;
  struct uv__mount* all;
  size_t nall;

  t = uv__calloc(1, sizeof(*t));
  if (t == NULL)
    return NULL;
  all = uv__mounts_parse_all(buf, size, &nall);
  if (all == NULL) {
    uv__free(t);
    return NULL;
  }
  if (uv__mounts_keep(all, nall, &t->n))
    goto fail;
  t->mounts = all;
  if (uv__mounts_copy_strings(t))
    goto fail;
  return t;

fail:
  uv__free(all);
  uv__free(t);
  return NULL;
}


/* With uv__mounts_load_mutex held: reads the mount table from the start of
 * `fd` and publishes it. Keeps the old table when it cannot. */
static void uv__mounts_load_locked(int fd) {
  struct uv__mount_table* t;
  struct uv__mount_table* old;
  size_t size;
  size_t len;
  ssize_t r;
  char* buf;
  char* grown;

  UV__TPM_ASSERT_HELD(&uv__mounts_load_mutex);
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

  t = uv__mounts_parse(buf, len);
  if (t == NULL)
    goto out;
  uv__tpm_lock(&uv__mounts_mutex);
  old = uv__mounts_table;
  uv__mounts_table = t;
  atomic_store_explicit(&uv__mounts_any, t->n > 0, memory_order_relaxed);
  uv__tpm_unlock(&uv__mounts_mutex);
  uv__mounts_table_free(old);

out:
  uv__free(buf);
}


static void uv__mounts_load(int fd) {
  uv__tpm_lock(&uv__mounts_load_mutex);
  uv__mounts_load_locked(fd);
  uv__tpm_unlock(&uv__mounts_load_mutex);
}


/* The watcher: the kernel marks mountinfo POLLPRI (and POLLERR) when the
 * mount table changed since it was last read. */
static void uv__mounts_watch(void* arg) {
  struct pollfd pfd;
  int r;

  (void) arg;
  uv_thread_setname("libuv-mounts");
  pfd.fd = uv__mounts_fd;
  pfd.events = POLLPRI;
  for (;;) {
    pfd.revents = 0;
    r = poll(&pfd, 1, -1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0 || (pfd.revents & POLLNVAL))
      break;
    if (pfd.revents & (POLLPRI | POLLERR))
      uv__mounts_load(uv__mounts_fd);
  }
  atomic_store(&uv__mounts_watched, 0);
}


static void uv__mounts_atfork_prepare(void) {
  uv__tpm_lock_fork_prepare(&uv__mounts_load_mutex);
  uv__tpm_lock_fork_prepare(&uv__mounts_mutex);
}


static void uv__mounts_atfork_parent(void) {
  uv__tpm_lock_fork_parent(&uv__mounts_mutex);
  uv__tpm_lock_fork_parent(&uv__mounts_load_mutex);
}


static void uv__mounts_atfork_child(void) {
  int fd;

  /* As slow-resource.c: held by the forking thread, start afresh. The
   * watcher is not in the child: fs-hop.c looks for changes itself
   * (uv__mounts_refresh()), on a mountinfo of its own (the parent's fd
   * shares its offset and its change events). */
  uv__tpm_lock_fork_child(&uv__mounts_mutex);
  uv__tpm_lock_fork_child(&uv__mounts_load_mutex);
  atomic_store(&uv__mounts_watched, 0);
  if (uv__mounts_fd >= 0) {
    fd = uv__open_cloexec("/proc/self/mountinfo", O_RDONLY);
    uv__close_nocheckstdio(uv__mounts_fd);
    uv__mounts_fd = fd;
  }
}


static void uv__mounts_init_once(void) {
  uv_thread_options_t options;
  sigset_t saved;

  if (uv__tpm_lock_init(&uv__mounts_mutex, UV__LOCK_MOUNTS) ||
      uv__tpm_lock_init(&uv__mounts_load_mutex, UV__LOCK_MOUNTS_LOAD))
    abort();
  if (pthread_atfork(uv__mounts_atfork_prepare,
                     uv__mounts_atfork_parent,
                     uv__mounts_atfork_child))
    abort();
  uv__mounts_extra = getenv("UV_FS_HANG_PRONE_TYPES");
  if (uv__mounts_extra != NULL)
    uv__mounts_extra = uv__strdup(uv__mounts_extra);
  uv__mounts_fd = uv__open_cloexec("/proc/self/mountinfo", O_RDONLY);
  if (uv__mounts_fd < 0)
    return;  /* No /proc: no hops. */
  uv__mounts_load(uv__mounts_fd);

  options.flags = UV_THREAD_HAS_STACK_SIZE;
  options.stack_size = 256u << 10;
  uv__tpm_block_signals(&saved);
  if (0 == uv_thread_create_ex(&uv__mounts_thread,
                               &options,
                               uv__mounts_watch,
                               NULL))
    atomic_store(&uv__mounts_watched, 1);
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
}


void uv__mounts_init(void) {
  uv_once(&uv__mounts_once, uv__mounts_init_once);
}


void uv__mounts_refresh(void) {
  struct pollfd pfd;

  if (uv__mounts_fd < 0)
    return;
  pfd.fd = uv__mounts_fd;
  pfd.events = POLLPRI;
  pfd.revents = 0;
  if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLPRI | POLLERR)))
    uv__mounts_load(uv__mounts_fd);
}


/* Appends `path` to the absolute, normalised `out` (length *len), lexically:
 * "." and empty components are dropped, ".." removes the last one. Returns
 * -1 if it does not fit. */
static int uv__mounts_append(char* out, size_t* len, size_t size,
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


static int uv__mounts_resolve(const char* path, char* out, size_t size) {
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
  return uv__mounts_append(out, &len, size, path);
}


/* With uv__mounts_mutex held: the ID of the mount that holds the
 * normalised `path` if it is hang-prone, else -1. */
static int uv__mounts_of(const char* path) {
  const struct uv__mount* best;
  const struct uv__mount* m;
  size_t len;
  size_t i;

  UV__TPM_ASSERT_HELD(&uv__mounts_mutex);
  if (uv__mounts_table == NULL)
    return -1;
  best = NULL;
  len = strlen(path);
  for (i = 0; i < uv__mounts_table->n; i++) {
    m = &uv__mounts_table->mounts[i];
    /* Of mounts stacked on one point, the last listed is on top. */
    if ((best == NULL || m->len >= best->len) &&
        uv__mounts_below(path, len, m->dir, m->len))
      best = m;
  }
  return best != NULL && best->hangs ? best->id : -1;
}


int uv__mounts_path_id(const char* path) {
  char abs[PATH_MAX];
  int id;

  if (uv__mounts_resolve(path, abs, sizeof(abs)))
    return -1;
  uv__tpm_lock(&uv__mounts_mutex);
  id = uv__mounts_of(abs);
  uv__tpm_unlock(&uv__mounts_mutex);
  return id;
}


int uv__mounts_fd_id(int fd) {
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


int uv__mounts_id_hangs(int id) {
  size_t i;
  int hangs;

  hangs = 0;
  uv__tpm_lock(&uv__mounts_mutex);
  if (uv__mounts_table != NULL)
    for (i = 0; i < uv__mounts_table->n; i++)
      if (uv__mounts_table->mounts[i].id == id) {
        hangs = uv__mounts_table->mounts[i].hangs;
        break;
      }
  uv__tpm_unlock(&uv__mounts_mutex);
  return hangs;
}

#else  /* !__linux__ */

_Atomic int uv__mounts_any;
_Atomic int uv__mounts_watched = 1;  /* no table: uv__fs_hop() returns 0 */

void uv__mounts_init(void) {
}

#endif  /* __linux__ */
