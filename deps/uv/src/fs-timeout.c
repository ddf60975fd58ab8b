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
 * nodecure: what an fs request does when it comes back from a timeout
 * (layer 4: calls the Manager and the core; see threadpool-core.h).
 *
 * uv__fs_work() (fs.c) calls uv__fs_commit() after the system call, before
 * it writes req->result. Three cases:
 *
 * - The call failed with EINTR because the task was told to stop (the
 *   Hangman's signal): the timeout stands. Nothing was done, so nothing is
 *   left behind; the loop gets UV_ETIMEDOUT once the work has returned.
 * - The call produced a real result and the loop has not been told of the
 *   timeout yet (the grace period of threadpool-manager.c): the request
 *   completes normally with that result (an fd, bytes read, bytes written).
 * - The loop has been told already (the task was abandoned): the result has
 *   no owner any more. What it created is released here, so that abandoned
 *   work leaks neither descriptors nor temporary files: an fd is closed, a
 *   mkstemp() file is removed and closed, a mkdtemp() directory removed, an
 *   opendir() stream closed, a scandir() list freed.
 *
 * The decision between the three is uv__fs_commit() (threadpool-manager.h)
 * and uv__fs_commit_slow(), on the worker; the Manager's commit
 * (uv__tpm_commit_work()) decides "not told yet". No state, no lock of its
 * own: what a late call created is released by the worker that made it
 * (fs-hop.c's executors use uv__fs_release_late() too).
 */

#include "threadpool-manager.h"
#include "unix/internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>


/* Releases what a call whose result nobody takes created (r: its result). */
void uv__fs_release_late(uv_fs_t* req, ssize_t r) {
  struct dirent** dents;
  uv_dir_t* dir;
  ssize_t i;

  switch (req->fs_type) {
  case UV_FS_OPEN:
    if (r >= 0)
      uv__close_nocheckstdio((int) r);  /* 0-2 if stdio was closed */
    break;
  case UV_FS_MKSTEMP:
    if (r >= 0) {
      unlink(req->path);  /* libuv's copy, filled in by mkstemp() */
      uv__close_nocheckstdio((int) r);  /* 0-2 if stdio was closed */
    }
    break;
  case UV_FS_MKDTEMP:
    if (r == 0)
      rmdir(req->path);
    break;
  case UV_FS_OPENDIR:
    dir = req->ptr;
    if (r == 0 && dir != NULL) {
      closedir(dir->dir);
      uv__free(dir);
    }
    req->ptr = NULL;
    break;
  case UV_FS_SCANDIR:
    /* uv_fs_req_cleanup() frees a list by req->result, which is the
     * timeout's status, not the list's length: free it here. */
    dents = req->ptr;
    if (r >= 0 && dents != NULL) {
      for (i = 0; i < r; i++)
        free(dents[i]);  /* scandir()'s, from malloc() */
      free(dents);
    }
    req->ptr = NULL;
    break;
  default:
    /* Reads and writes have nothing to release: their buffers are the
     * caller's, kept until the reclaim (uv/timeout.h). readlink, realpath
     * and statfs leave req->ptr to uv_fs_req_cleanup(). */
    break;
  }
}


/* On the worker, right after a system call whose result the timed-out task
 * may not publish: releases what it created. Returns 0 (uv__fs_commit()). */
int uv__fs_commit_late(uv_fs_t* req, ssize_t r) {
  uv__fs_release_late(req, r);
  return 0;
}


/* On the worker, right after a system call that failed with EINTR: nonzero
 * if the work may publish `r` (errno `err`) in the request. */
int uv__fs_commit_slow(uv_fs_t* req, ssize_t r, int err) {
  if (r == -1 && err == EINTR && uv__tpm_stopping()) {
    /* A synchronous call has no done callback to set its status: it
     * returns UV_EINTR (UV_ETIMEDOUT from a stopped section, see
     * uv/sync-stop.h). */
    if (req->cb == NULL)
      req->result = UV_EINTR;
    return 0;
  }
  if (uv__tpm_current == NULL || uv__tpm_commit_work(&req->work_req))
    return 1;
  return uv__fs_commit_late(req, r);
}
