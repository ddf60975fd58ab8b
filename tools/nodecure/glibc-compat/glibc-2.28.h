/* glibc-2.28.h: forced into every C and C++ unit (-include) of a build
 * against tools/nodecure/sysroot.py's sysroot (glibc 2.31), so that what it
 * links needs glibc 2.28 at most (issue 33).
 *
 * glibc 2.29 gave exp, exp2, log, log2 and pow of libm new symbol versions
 * (GLIBC_2.29: the same code without the SVID compatibility wrapper; both
 * set errno alike). A reference to one of them binds GLIBC_2.2.5 instead,
 * which every glibc has; glibc 2.28 has the new implementation under it.
 * Nothing here includes a header, so a unit's own feature macros still
 * decide what glibc's headers declare; an assembler source (.S) gets
 * nothing. A unit that defines one of these five itself would define it
 * under GLIBC_2.2.5 too, which a link without a version script refuses:
 * nothing in Node 24 does.
 *
 * What cannot be pinned, as no version before 2.29 exists: gettid, tgkill,
 * getdents64, getcpu, twalk_r (use syscall()),
 * posix_spawn_file_actions_add{,f}chdir_np (libuv looks it up by dlsym),
 * pthread_clockjoin_np, pthread_cond_clockwait, pthread_mutex_clocklock,
 * pthread_rwlock_clock{rd,wr}lock and sem_clockwait (libstdc++'s headers
 * would use the pthread ones: the sysroot's bits/c++config.h turns that
 * off). totalorder* (GLIBC_2.31) changed their arguments from values to
 * pointers, so their GLIBC_2.25 versions are no substitute. A link that
 * uses any of these still shows GLIBC_2.29 or later in `objdump -T`.
 *
 * With NODECURE_GLIBC_COMPAT_DEFINITIONS (sysroot.py compiles this file so
 * into libnodecure-glibc-compat.a, which the sysroot's libc.so script
 * names): hidden definitions of what bookworm's libstdc++.a (GCC 12, built
 * on glibc 2.36) references and glibc 2.31 lacks. Hidden, so that node
 * does not export them over a newer glibc's own.
 *
 * x86_64 only: other architectures' oldest versions differ (aarch64's are
 * GLIBC_2.17).
 */
#ifndef NODECURE_GLIBC_2_28_H_
#define NODECURE_GLIBC_2_28_H_

#if defined(__x86_64__) && defined(__linux__) && !defined(__ILP32__) && \
    !defined(__ASSEMBLER__)
__asm__(".symver exp,exp@GLIBC_2.2.5");
__asm__(".symver exp2,exp2@GLIBC_2.2.5");
__asm__(".symver log,log@GLIBC_2.2.5");
__asm__(".symver log2,log2@GLIBC_2.2.5");
__asm__(".symver pow,pow@GLIBC_2.2.5");
#endif

#ifdef NODECURE_GLIBC_COMPAT_DEFINITIONS
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

/* glibc 2.32: nonzero while the process has one thread. libstdc++ reads it
 * to skip atomic operations; 0 is always correct (they are never
 * skipped). */
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;

/* glibc 2.36 (std::random_device's default source in libstdc++ 12): the
 * kernel's random numbers, /dev/urandom without getrandom(), else abort,
 * as glibc's own never fails either. */
__attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t v;
  ssize_t n;
  int fd;
  do
    n = getrandom(&v, sizeof v, 0);
  while (n < 0 && errno == EINTR);
  if (n == (ssize_t)sizeof v)
    return v;
  fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    n = read(fd, &v, sizeof v);
    close(fd);
    if (n == (ssize_t)sizeof v)
      return v;
  }
  abort();
}
#endif /* NODECURE_GLIBC_COMPAT_DEFINITIONS */

#endif /* NODECURE_GLIBC_2_28_H_ */
