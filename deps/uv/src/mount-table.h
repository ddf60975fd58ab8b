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
 * nodecure: the mount table's interface (mount-table.c, layer 1: calls the
 * core only). sync-stop.c starts it, fs-hop.c asks it which mount a path or
 * an fd is on.
 */

#ifndef UV_MOUNT_TABLE_H_
#define UV_MOUNT_TABLE_H_

#include "threadpool-core.h"

/* Nonzero while the table has a hang-prone mount, and while a watcher
 * thread keeps the table up to date: read without a lock, on every
 * synchronous call of a stoppable section (uv__fs_hop() in
 * threadpool-manager.h). */
extern _Atomic int uv__mounts_any;
extern _Atomic int uv__mounts_watched;

/* Once a thread registers a stop: reads the table and starts the watcher. */
void uv__mounts_init(void);

#if defined(__linux__)
/* Without a watcher (a forked child): reads the table again if it changed. */
void uv__mounts_refresh(void);
/* The ID of the hang-prone mount that holds `path` (absolute, or relative
 * to the working directory), else -1. */
int uv__mounts_path_id(const char* path);
/* The ID of the mount `fd` is on, from /proc/self/fdinfo (procfs only,
 * never the fd's own file system), or -1. */
int uv__mounts_fd_id(int fd);
/* Nonzero if mount `id` is hang-prone. */
int uv__mounts_id_hangs(int id);
#endif

#endif  /* UV_MOUNT_TABLE_H_ */
