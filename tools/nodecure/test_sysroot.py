#!/usr/bin/env python3
"""make test-sysroot: what is linked against sysroot.py's sysroot needs glibc
2.28 at most, and runs there (issue 33).

Makes build/sysroot/bullseye-amd64 if need be (sysroot.py), then builds into
build/test/sysroot, with common.CC and common.CXX (clang 19) and the flags of
sysroot.flags() (glibc-2.28.h forced into every unit, GCC 12's libstdc++.a,
libgcc_s shared):

  cxx      a C++17 program using what node's C++ uses of libstdc++ and glibc:
           std::thread, std::mutex, std::timed_mutex, std::condition_variable
           wait_for (a timeout, then a notification), std::filesystem,
           std::random_device (its default source, arc4random, getentropy,
           /dev/urandom), iostream, exceptions (thrown in libstdc++.a and
           across threads), dlopen, exp, exp2, log, log2, pow, fcntl, stat;
           linked -rdynamic, as node is
  uvtest   libuv from build/node/deps/uv (the Unix and Linux sources that
           uv.gyp lists, with the defines and flags of build/node's libuv)
           and a main that runs a timer, a uv_queue_work job and uv_fs_stat
           requests; skipped, saying so, when build/node is absent
  mathcmp  exp, exp2, log, log2 and pow as glibc-2.28.h pins them
           (GLIBC_2.2.5) beside the same functions unpinned (the default
           versions, GLIBC_2.29), on 4,000 inputs each

and checks:

  - cxx and uvtest bind no GLIBC_ version above 2.28 and no GLIBCXX_ or
    CXXABI_ one (objdump -T), and need only libc, libm, libdl, libpthread,
    librt, libgcc_s and the dynamic loader (readelf -d); cxx exports none of
    libnodecure-glibc-compat.a's definitions;
  - on the host, each prints the expected lines; mathcmp binds both versions
    of the five functions, and the pinned ones return what the host glibc's
    defaults return (bit-identical, errno alike) on every input;
  - in a Debian 11 root (build/test/bullseye-root, glibc 2.31, kept between
    runs; made with debootstrap or mmdebstrap, minbase, from the host's
    Debian archive when it is missing and we are root), chroot with /proc
    mounted: each prints what it printed on the host.

Each check prints PASS or FAIL; SKIP lines say what was not checked and why
and are not counted. The last line is 'test-sysroot: N passed, M failed'.
About 10 s with ccache cold (mostly libuv) and under a second warm, once
the sysroot and the root exist; making the root takes about a minute.
"""

import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import dist  # noqa: E402
import sysroot  # noqa: E402
from common import BUILD, log, run  # noqa: E402
from dist import GLIBC_MAX, dynamic_symbols  # noqa: E402

TREE = BUILD / 'node'
UV = TREE / 'deps' / 'uv'
WORK = BUILD / 'test' / 'sysroot'
DEB11_ROOT = BUILD / 'test' / 'bullseye-root'
# Where the programs are copied to inside the root (removed afterwards).
IN_ROOT = '/tmp/nodecure-test-sysroot'
ALLOWED_NEEDED = {'libc.so.6', 'libm.so.6', 'libdl.so.2', 'libpthread.so.0',
                  'librt.so.1', 'libgcc_s.so.1', 'ld-linux-x86-64.so.2'}
# What libnodecure-glibc-compat.a defines: hidden, so never exported.
COMPAT_SYMBOLS = ['__libc_single_threaded', 'arc4random']
LIBM = ['exp', 'exp2', 'log', 'log2', 'pow']
MATH_INPUTS = 4000
# The host's settings that would make the compiler or the linker look
# outside the sysroot (LIBRARY_PATH adds -L directories, CPATH & co.
# include directories).
LEAKY_ENV = ['LIBRARY_PATH', 'CPATH', 'C_INCLUDE_PATH', 'CPLUS_INCLUDE_PATH']
# How build/node compiles libuv on Linux (uv.gyp, common.gypi and
# configure's defines; out/deps/uv/libuv.target.mk), but -g.
UV_FLAGS = ['-D_GLIBCXX_USE_CXX11_ABI=1', '-D_FILE_OFFSET_BITS=64',
            '-D_LARGEFILE_SOURCE', '-D_GNU_SOURCE', '-D__STDC_FORMAT_MACROS',
            '-pthread', '-Wall', '-Wextra', '-Wno-unused-parameter',
            '-Wstrict-prototypes', '-fvisibility=hidden', '--std=gnu11',
            '-fno-strict-aliasing', '-m64', '-O3', '-fno-omit-frame-pointer']

CXX_SOURCE = r'''// test_sysroot.py's C++17 program: what node's C++ uses of
// libstdc++ and glibc. It prints the same lines on any glibc >= 2.28.
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <mutex>
#include <random>
#include <shared_mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

static volatile double k0_5 = 0.5, k1_5 = 1.5, k2 = 2, k10 = 10;

static const char* yes(bool b) { return b ? "yes" : "NO"; }

static void threads() {
  std::mutex m;
  long sum = 0;
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; i++)
    ts.emplace_back([&, i] { std::lock_guard<std::mutex> g(m); sum += i; });
  for (auto& t : ts) t.join();
  std::cout << "thread: 4 joined, sum " << sum << "\n";
}

static void waits() {
  std::mutex m;
  std::condition_variable cv;
  bool ready = false;
  std::unique_lock<std::mutex> l(m);
  auto t0 = steady_clock::now();
  bool early = cv.wait_for(l, milliseconds(20), [&] { return ready; });
  bool waited = steady_clock::now() - t0 >= milliseconds(20);
  std::thread n([&] {
    { std::lock_guard<std::mutex> g(m); ready = true; }
    cv.notify_one();
  });
  bool notified = cv.wait_for(l, std::chrono::seconds(60),
                              [&] { return ready; });
  l.unlock();
  n.join();
  std::cout << "condition_variable: wait_for timed out after 20 ms: "
            << yes(!early && waited) << ", then was notified: "
            << yes(notified) << "\n";
  std::timed_mutex tm;
  tm.lock();
  bool gave_up = false;
  std::thread([&] {
    auto t1 = steady_clock::now();
    bool got = tm.try_lock_for(milliseconds(10));
    gave_up = !got && steady_clock::now() - t1 >= milliseconds(10);
  }).join();
  tm.unlock();
  std::shared_timed_mutex stm;
  bool shared = stm.try_lock_shared_for(milliseconds(10));
  if (shared) stm.unlock_shared();
  std::cout << "timed_mutex: try_lock_for gave up after 10 ms: "
            << yes(gave_up) << "; shared_timed_mutex: " << yes(shared)
            << "\n";
}

static void files() {
  fs::path dir = fs::temp_directory_path() /
                 ("nodecure-test-sysroot." + std::to_string(getpid()));
  fs::create_directories(dir / "sub");
  { std::ofstream(dir / "file") << "hello\n"; }
  fs::create_symlink("file", dir / "link");
  auto size = fs::file_size(dir / "file");
  auto entries = std::distance(fs::directory_iterator(dir),
                               fs::directory_iterator());
  std::cout << "filesystem: " << size << " bytes, " << entries
            << " entries, link -> " << fs::read_symlink(dir / "link").string()
            << ", canonical "
            << fs::canonical(dir / "link").filename().string() << "\n";

  int fd = open((dir / "file").c_str(), O_RDWR | O_CLOEXEC);
  bool cloexec = fcntl(fd, F_GETFD) & FD_CLOEXEC;
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  bool nonblock = fcntl(fd, F_GETFL) & O_NONBLOCK;
  struct flock lk = {};
  lk.l_type = F_WRLCK;
  lk.l_whence = SEEK_SET;
  bool locked = fcntl(fd, F_SETLK, &lk) == 0;
  int fd2 = fcntl(fd, F_DUPFD_CLOEXEC, 100);
  std::cout << "fcntl: FD_CLOEXEC " << yes(cloexec) << ", O_NONBLOCK "
            << yes(nonblock) << ", F_SETLK " << yes(locked)
            << ", F_DUPFD_CLOEXEC " << yes(fd2 >= 100) << "\n";
  struct stat fst, dst, lst;
  bool ok = fstat(fd, &fst) == 0 && stat(dir.c_str(), &dst) == 0 &&
            lstat((dir / "link").c_str(), &lst) == 0;
  std::cout << "stat: " << yes(ok) << ", a file of " << fst.st_size
            << " bytes " << yes(S_ISREG(fst.st_mode)) << ", a directory "
            << yes(S_ISDIR(dst.st_mode)) << ", a symbolic link "
            << yes(S_ISLNK(lst.st_mode)) << "\n";
  close(fd2);
  close(fd);
  std::cout << "filesystem: remove_all removed " << fs::remove_all(dir)
            << "\n";
}

static void randoms() {
  std::cout << "random_device:";
  const char* sep = " ";
  for (const char* token : {"default", "arc4random", "getentropy",
                            "/dev/urandom"}) {
    const char* how;
    try {
      std::random_device rd(token);
      unsigned a = rd(), b = rd(), c = rd(), d = rd();
      how = a == b && b == c && c == d ? "SAME VALUES" : "ok";
    } catch (const std::exception&) {
      how = "UNAVAILABLE";
    }
    std::cout << sep << token << " " << how;
    sep = ", ";
  }
  std::cout << "\n";
}

static void streams() {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3) << 3.14159 << " " << std::hex
     << 255 << " " << std::boolalpha << true;
  std::istringstream is("42 4.5 word");
  int i;
  double d;
  std::string w;
  is >> i >> d >> w;
  std::cout << "iostream: " << os.str() << "; read " << i << " " << d << " "
            << w << "\n";
}

static void exceptions() {
  std::vector<std::string> seen;
  try {
    throw std::runtime_error("runtime_error");
  } catch (const std::exception& e) {
    seen.push_back(e.what());
  }
  try {
    (void)std::stoi("x");
  } catch (const std::invalid_argument&) {
    seen.push_back("invalid_argument from stoi");
  }
  try {
    (void)std::vector<int>().at(1);
  } catch (const std::out_of_range&) {
    seen.push_back("out_of_range from at");
  }
  std::exception_ptr ep;
  std::thread([&] {
    try {
      throw 42;
    } catch (...) {
      ep = std::current_exception();
    }
  }).join();
  try {
    std::rethrow_exception(ep);
  } catch (int v) {
    seen.push_back("int " + std::to_string(v) + " across threads");
  }
  std::cout << "exceptions:";
  for (size_t k = 0; k < seen.size(); k++)
    std::cout << (k ? ", " : " ") << seen[k];
  std::cout << "\n";
}

static void dl() {
  void* h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  auto cosine = h ? reinterpret_cast<double (*)(double)>(dlsym(h, "cos"))
                  : nullptr;
  bool missing = dlopen("libnodecure-missing.so", RTLD_NOW) == nullptr &&
                 dlerror() != nullptr;
  std::cout << "dlopen: libm.so.6 " << yes(h) << ", dlsym cos(0) = "
            << (cosine ? cosine(0.0) : -1) << ", a missing library fails "
            << yes(missing) << "\n";
  if (h) dlclose(h);
}

static void libm() {
  std::ostringstream os;
  os << std::setprecision(17) << "libm: exp(1.5) = " << std::exp(k1_5)
     << ", exp2(0.5) = " << std::exp2(k0_5) << ", log(10) = "
     << std::log(k10) << ", log2(10) = " << std::log2(k10)
     << ", pow(2, 0.5) = " << std::pow(k2, k0_5);
  std::cout << os.str() << "\n";
}

int main() {
  threads();
  waits();
  files();
  randoms();
  streams();
  exceptions();
  dl();
  libm();
  return 0;
}
'''

CXX_EXPECTED = '''\
thread: 4 joined, sum 6
condition_variable: wait_for timed out after 20 ms: yes, then was notified: yes
timed_mutex: try_lock_for gave up after 10 ms: yes; shared_timed_mutex: yes
filesystem: 6 bytes, 3 entries, link -> file, canonical file
fcntl: FD_CLOEXEC yes, O_NONBLOCK yes, F_SETLK yes, F_DUPFD_CLOEXEC yes
stat: yes, a file of 6 bytes yes, a directory yes, a symbolic link yes
filesystem: remove_all removed 4
random_device: default ok, arc4random ok, getentropy ok, /dev/urandom ok
iostream: 3.142 ff true; read 42 4.5 word
exceptions: runtime_error, invalid_argument from stoi, out_of_range from at, \
int 42 across threads
dlopen: libm.so.6 yes, dlsym cos(0) = 1, a missing library fails yes
libm: exp(1.5) = 4.4816890703380645, exp2(0.5) = 1.4142135623730951, \
log(10) = 2.3025850929940459, log2(10) = 3.3219280948873622, \
pow(2, 0.5) = 1.4142135623730951
'''

UV_SOURCE = r'''/* test_sysroot.py's libuv program: a timer, a
 * uv_queue_work job and uv_fs_stat requests on the default loop. */
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <uv.h>

static uv_loop_t* loop;
static uv_thread_t main_thread;
static int timer_fired, off_main, after_status = -1, dir_ok, exe_ok;
static uint64_t timer_start, timer_elapsed;
static double result;
static volatile double zero = 0, one = 1, two = 2, ten = 10, k1024 = 1024;

static void on_timer(uv_timer_t* t) {
  timer_fired++;
  timer_elapsed = uv_now(loop) - timer_start;
  uv_close((uv_handle_t*) t, NULL);
}

static void work(uv_work_t* req) {
  uv_thread_t self = uv_thread_self();
  off_main = !uv_thread_equal(&self, &main_thread);
  result = pow(two, ten) + exp2(ten) + log2(k1024) + exp(zero) + log(one);
}

static void after_work(uv_work_t* req, int status) { after_status = status; }

static void on_stat_dir(uv_fs_t* req) {
  dir_ok = req->result == 0 && S_ISDIR(req->statbuf.st_mode);
  uv_fs_req_cleanup(req);
}

static void on_stat_exe(uv_fs_t* req) {
  exe_ok = req->result == 0 && S_ISREG(req->statbuf.st_mode) &&
           req->statbuf.st_size > 0;
  uv_fs_req_cleanup(req);
}

int main(void) {
  char exe[4096];
  size_t size = sizeof(exe);
  uv_timer_t timer;
  uv_work_t work_req;
  uv_fs_t dir_req, exe_req;
  int exe_rc, rc;

  loop = uv_default_loop();
  main_thread = uv_thread_self();
  exe_rc = uv_exepath(exe, &size);
  uv_timer_init(loop, &timer);
  timer_start = uv_now(loop);
  uv_timer_start(&timer, on_timer, 10, 0);
  uv_queue_work(loop, &work_req, work, after_work);
  uv_fs_stat(loop, &dir_req, "/", on_stat_dir);
  if (exe_rc == 0)
    uv_fs_stat(loop, &exe_req, exe, on_stat_exe);
  rc = uv_run(loop, UV_RUN_DEFAULT);
  printf("timer: fired %d time(s), after 10 ms %s\n", timer_fired,
         timer_elapsed >= 10 ? "yes" : "NO");
  printf("uv_queue_work: on a pool thread %s, status %d, "
         "pow(2, 10) + exp2(10) + log2(1024) + exp(0) + log(1) = %.17g\n",
         off_main ? "yes" : "NO", after_status, result);
  printf("uv_fs_stat: / is a directory %s; uv_exepath %s, "
         "a regular file %s\n", dir_ok ? "yes" : "NO",
         exe_rc == 0 ? "ok" : uv_strerror(exe_rc), exe_ok ? "yes" : "NO");
  printf("uv_run: %d, uv_loop_close: %d\n", rc, uv_loop_close(loop));
  return 0;
}
'''

UV_EXPECTED = '''\
timer: fired 1 time(s), after 10 ms yes
uv_queue_work: on a pool thread yes, status 0, \
pow(2, 10) + exp2(10) + log2(1024) + exp(0) + log(1) = 2059
uv_fs_stat: / is a directory yes; uv_exepath ok, a regular file yes
uv_run: 0, uv_loop_close: 0
'''

# Compiled twice: with glibc-2.28.h (PREFIX pinned_) and without it
# (PREFIX host_), where glibc 2.31's headers bind the default versions.
MATH_FUNCTIONS = r'''#include <math.h>
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
double CAT(PREFIX, exp)(double x) { return exp(x); }
double CAT(PREFIX, exp2)(double x) { return exp2(x); }
double CAT(PREFIX, log)(double x) { return log(x); }
double CAT(PREFIX, log2)(double x) { return log2(x); }
double CAT(PREFIX, pow)(double x, double y) { return pow(x, y); }
'''

MATH_MAIN = r'''/* test_sysroot.py: exp, exp2, log, log2 and pow bound to
 * GLIBC_2.2.5 (pinned_*) against the default versions (host_*): the same
 * bits and the same errno on MATH_INPUTS inputs each, and on special
 * cases. Exits 1 on any difference but the sign of a NaN. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define F(name, ...) \
  double pinned_##name(__VA_ARGS__), host_##name(__VA_ARGS__);
F(exp, double) F(exp2, double) F(log, double) F(log2, double)
F(pow, double, double)
#undef F

static uint64_t state = 88172645463325252ull;
static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}
static double uniform(double lo, double hi) {
  return lo + (hi - lo) * (double) (next() >> 11) / 9007199254740992.0;
}
/* Any positive double, subnormals included: a random exponent field. */
static double positive(void) {
  uint64_t u = (next() % 2047) << 52 | (next() & 0xfffffffffffffull);
  double d;
  memcpy(&d, &u, 8);
  return d ? d : 1;
}
static uint64_t bits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
/* FNV-1a of each function's pinned results. */
static uint64_t digest[5] = {
  14695981039346656037ull, 14695981039346656037ull, 14695981039346656037ull,
  14695981039346656037ull, 14695981039346656037ull};
static double pinned_result;
static void mix(int k, uint64_t v) {
  for (int i = 0; i < 8; i++) {
    digest[k] ^= (v >> (8 * i)) & 0xff;
    digest[k] *= 1099511628211ull;
  }
}

/* 0: the same bits and errno; 1: NaNs of the other sign, errno alike;
 * 2: different. */
static int compare(int k, double x, double y) {
  double a, b;
  int ea, eb;
  errno = 0;
  switch (k) {
    case 0: a = pinned_exp(x); break;
    case 1: a = pinned_exp2(x); break;
    case 2: a = pinned_log(x); break;
    case 3: a = pinned_log2(x); break;
    default: a = pinned_pow(x, y); break;
  }
  ea = errno;
  errno = 0;
  switch (k) {
    case 0: b = host_exp(x); break;
    case 1: b = host_exp2(x); break;
    case 2: b = host_log(x); break;
    case 3: b = host_log2(x); break;
    default: b = host_pow(x, y); break;
  }
  eb = errno;
  pinned_result = a;
  if (ea != eb)
    return 2;
  if (bits(a) == bits(b))
    return 0;
  return isnan(a) && isnan(b) ? 1 : 2;
}

int main(void) {
  static const char* names[] = {"exp", "exp2", "log", "log2", "pow"};
  static const struct { const char* what; int k; double x, y; } special[] = {
    {"exp(1000)", 0, 1000, 0}, {"exp(-1000)", 0, -1000, 0},
    {"exp(-inf)", 0, -INFINITY, 0}, {"exp(nan)", 0, NAN, 0},
    {"exp2(2000)", 1, 2000, 0}, {"exp2(-2000)", 1, -2000, 0},
    {"log(0)", 2, 0, 0}, {"log(-0)", 2, -0.0, 0}, {"log(-1)", 2, -1, 0},
    {"log(inf)", 2, INFINITY, 0}, {"log(-inf)", 2, -INFINITY, 0},
    {"log2(0)", 3, 0, 0}, {"log2(-1)", 3, -1, 0},
    {"pow(0, -1)", 4, 0, -1}, {"pow(-0, -3)", 4, -0.0, -3},
    {"pow(-1, 0.5)", 4, -1, 0.5}, {"pow(10, 400)", 4, 10, 400},
    {"pow(10, -400)", 4, 10, -400}, {"pow(-8, 1/3)", 4, -8, 1.0 / 3},
    {"pow(nan, 0)", 4, NAN, 0}, {"pow(1, nan)", 4, 1, NAN},
    {"pow(-inf, 3)", 4, -INFINITY, 3},
  };
  int bad = 0, n = (int) (sizeof(special) / sizeof(*special)), same = 0;
  char nan_sign[256] = "", different[512] = "";
  for (int k = 0; k < 5; k++) {
    int alike = 0;
    for (int i = 0; i < MATH_INPUTS; i++) {
      double x, y = 0;
      switch (k) {
        case 0: x = i % 10 ? uniform(-746, 710) : uniform(-1, 1); break;
        case 1: x = i % 10 ? uniform(-1076, 1025) : uniform(-1, 1); break;
        case 2: case 3: x = i % 10 ? positive() : uniform(0.5, 2); break;
        default:
          if (i % 10 == 1) {
            x = -uniform(0, 10);
            y = (double) (int64_t) uniform(-300, 300);
          } else {
            x = i % 10 ? uniform(0, 100) : positive();
            y = i % 10 ? uniform(-300, 300) : uniform(-3, 3);
          }
      }
      alike += compare(k, x, y) == 0;
      mix(k, bits(pinned_result));
    }
    printf("%s: %d of %d inputs bit-identical, errno alike\n", names[k],
           alike, MATH_INPUTS);
    bad += alike != MATH_INPUTS;
  }
  for (int i = 0; i < n; i++) {
    int r = compare(special[i].k, special[i].x, special[i].y);
    same += r == 0;
    if (r)
      snprintf(r == 1 ? nan_sign + strlen(nan_sign) :
                        different + strlen(different),
               r == 1 ? sizeof(nan_sign) - strlen(nan_sign) :
                        sizeof(different) - strlen(different),
               "%s%s", *(r == 1 ? nan_sign : different) ? ", " : "",
               special[i].what);
    bad += r == 2;
  }
  printf("special cases: %d of %d bit-identical, errno alike; a NaN of the "
         "other sign: %s; different: %s\n", same, n,
         *nan_sign ? nan_sign : "none", *different ? different : "none");
  printf("digests of the pinned results:");
  for (int k = 0; k < 5; k++)
    printf("%s %s %016llx", k ? "," : "", names[k],
           (unsigned long long) digest[k]);
  printf("\n");
  return bad != 0;
}
'''


class Result:
  def __init__(self):
    self.passed = 0
    self.failed = 0

  def check(self, name, ok, detail):
    if ok:
      self.passed += 1
    else:
      self.failed += 1
    print('%s  %s: %s' % ('PASS' if ok else 'FAIL', name, detail),
          flush=True)
    return ok

  def skip(self, name, why):
    print('SKIP  %s: %s' % (name, why), flush=True)


def build_env():
  env = common.build_env()
  for k in LEAKY_ENV:
    if env.pop(k, None) is not None:
      log('test-sysroot: %s dropped from the compile environment (it would '
          'reach outside the sysroot)' % k)
  return env


def compile_all(jobs, env):
  """Run the compile commands JOBS ([(cmd, output)]) in parallel: None, or
  the first failure's command and output."""
  def one(job):
    cmd, _ = job
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return None if r.returncode == 0 else '%s\n%s' % (
        ' '.join(map(str, cmd)), r.stdout[-4000:])
  workers = max(1, min(common.jobs(), len(jobs)))
  with concurrent.futures.ThreadPoolExecutor(workers) as pool:
    for err in pool.map(one, jobs):
      if err:
        return err
  return None


def link(cmd, env):
  r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True)
  return None if r.returncode == 0 else '%s\n%s' % (
      ' '.join(map(str, cmd)), r.stdout[-4000:])


def uv_sources():
  """libuv's Unix and Linux sources, as uv.gyp lists them (proctitle.c is
  added by an OS condition of its own)."""
  import ast
  variables = ast.literal_eval((UV / 'uv.gyp').read_text())['variables']
  names = (variables['uv_sources_common'] + variables['uv_sources_posix'] +
           ['src/unix/proctitle.c'] + variables['uv_sources_linux'])
  return [n for n in dict.fromkeys(names) if n.endswith('.c')]


def build(result, flags, env):
  """Compile and link the programs; {name: path} of those that built."""
  cflags, ldflags = flags
  c_ldflags = [f for f in ldflags if f != '-static-libstdc++']
  # The sysroot without glibc-2.28.h: what the headers bind by default.
  plain = [f for i, f in enumerate(cflags)
           if f != '-include' and not (i and cflags[i - 1] == '-include')]
  src, obj, bin_ = WORK / 'src', WORK / 'obj', WORK / 'bin'
  shutil.rmtree(bin_, ignore_errors=True)
  for d in (src, obj / 'uv', bin_):
    d.mkdir(parents=True, exist_ok=True)
  files = {'cxx.cc': CXX_SOURCE, 'uvtest.c': UV_SOURCE,
           'math-main.c': MATH_MAIN, 'math-functions.c': MATH_FUNCTIONS}
  for name, text in files.items():
    p = src / name
    if not p.exists() or p.read_text() != text:
      p.write_text(text)
  cc, cxx = common.CC.split(), common.CXX.split()
  built = {}

  # (a) C++17.
  start = time.monotonic()
  err = compile_all([(cxx + ['-std=c++17', '-O1', '-pthread',
                             '-D_FILE_OFFSET_BITS=64', '-Wall'] + cflags +
                      ['-c', str(src / 'cxx.cc'), '-o', str(obj / 'cxx.o')],
                      obj / 'cxx.o')], env) or \
      link(cxx + ['-pthread', '-rdynamic', str(obj / 'cxx.o'), '-o',
                  str(bin_ / 'cxx')] + ldflags + ['-ldl'], env)
  if result.check('cxx: build', err is None,
                  err or 'compiled and linked in %.1f s' %
                  (time.monotonic() - start)):
    built['cxx'] = bin_ / 'cxx'

  # (b) libuv and its main.
  if not (UV / 'uv.gyp').exists():
    result.skip('uvtest', '%s is absent (./configure makes build/node): '
                'libuv was not built against the sysroot' % UV)
  else:
    start = time.monotonic()
    sources = uv_sources()
    jobs = []
    for s in sources:
      o = obj / 'uv' / (s.replace('/', '_')[:-2] + '.o')
      jobs.append((cc + UV_FLAGS + ['-I%s' % (UV / 'include'),
                                    '-I%s' % (UV / 'src')] + cflags +
                   ['-c', str(UV / s), '-o', str(o)], o))
    jobs.append((cc + ['-std=gnu11', '-O1', '-pthread', '-Wall',
                       '-D_FILE_OFFSET_BITS=64', '-D_GNU_SOURCE',
                       '-I%s' % (UV / 'include')] + cflags +
                 ['-c', str(src / 'uvtest.c'), '-o', str(obj / 'uvtest.o')],
                 obj / 'uvtest.o'))
    err = compile_all(jobs, env) or \
        link(cc + ['-pthread', '-rdynamic'] + [str(o) for _, o in jobs] +
             ['-o', str(bin_ / 'uvtest')] + c_ldflags +
             ['-ldl', '-lrt', '-lm'], env)
    if result.check('uvtest: build', err is None,
                    err or 'libuv (%d sources of uv.gyp) and the test '
                    'compiled and linked in %.1f s' %
                    (len(sources), time.monotonic() - start)):
      built['uvtest'] = bin_ / 'uvtest'

  # (c) the pinned libm functions beside the default ones.
  start = time.monotonic()
  common_c = ['-std=gnu11', '-O1', '-fno-builtin', '-Wall']
  jobs = [(cc + common_c + ['-DPREFIX=pinned_'] + cflags +
           ['-c', str(src / 'math-functions.c'), '-o',
            str(obj / 'math-pinned.o')], obj / 'math-pinned.o'),
          (cc + common_c + ['-DPREFIX=host_'] + plain +
           ['-c', str(src / 'math-functions.c'), '-o',
            str(obj / 'math-host.o')], obj / 'math-host.o'),
          (cc + common_c + ['-DMATH_INPUTS=%d' % MATH_INPUTS] + cflags +
           ['-c', str(src / 'math-main.c'), '-o', str(obj / 'math-main.o')],
           obj / 'math-main.o')]
  err = compile_all(jobs, env) or \
      link(cc + [str(o) for _, o in jobs] + ['-o', str(bin_ / 'mathcmp')] +
           c_ldflags + ['-lm'], env)
  if result.check('mathcmp: build', err is None,
                  err or 'compiled and linked in %.1f s' %
                  (time.monotonic() - start)):
    built['mathcmp'] = bin_ / 'mathcmp'
  return built


def check_links(result, name, binary):
  syms = dynamic_symbols(binary)
  highest, above, cxxabi = dist.symbol_floor(binary, syms)
  result.check('%s: glibc <= %d.%d' % ((name,) + GLIBC_MAX), not above,
               'highest %s%s' % (highest or 'none',
                                 '; above %d.%d: %s' % (GLIBC_MAX + (
                                     ', '.join(above),)) if above else ''))
  result.check('%s: no GLIBCXX' % name, not cxxabi,
               ', '.join(cxxabi[:8]) if cxxabi else
               'no GLIBCXX_ or CXXABI_ version')
  out = run(['readelf', '-d', str(binary)], capture=True)
  needed = re.findall(r'\(NEEDED\)\s+Shared library: \[([^]]+)\]', out)
  extra = [n for n in needed if n not in ALLOWED_NEEDED]
  result.check('%s: NEEDED' % name, not extra,
               ('%s outside the allowed set; ' % ', '.join(extra)
                if extra else '') + ' '.join(needed))
  return syms


def run_program(cmd, env, timeout=120):
  try:
    r = subprocess.run(cmd, env=env, capture_output=True, text=True,
                       timeout=timeout)
  except subprocess.TimeoutExpired:
    return None, 'timed out after %d s' % timeout
  return r.returncode, r.stdout + (r.stderr and '[stderr]\n' + r.stderr)


def diff(expected, got):
  e, g = expected.splitlines(), got.splitlines()
  lines = []
  for i in range(max(len(e), len(g))):
    a = e[i] if i < len(e) else '(nothing)'
    b = g[i] if i < len(g) else '(nothing)'
    if a != b:
      lines.append('\n    expected: %s\n    got:      %s' % (a, b))
  return ''.join(lines[:6])


def run_host(result, built):
  """Run each program on the host; {name: output} of those that ran."""
  tmp = WORK / 'tmp'
  tmp.mkdir(parents=True, exist_ok=True)
  env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'LANG': 'C',
         'TMPDIR': str(tmp)}
  outputs = {}
  for name, expected in (('cxx', CXX_EXPECTED), ('uvtest', UV_EXPECTED)):
    if name not in built:
      continue
    rc, out = run_program([str(built[name])], env)
    ok = rc == 0 and out == expected
    result.check('%s: runs on the host' % name, ok,
                 'printed the %d expected lines' % len(expected.splitlines())
                 if ok else 'exit %s%s' % (rc, diff(expected, out) or
                                           '\n' + out))
    outputs[name] = out
  if 'mathcmp' in built:
    syms = dynamic_symbols(built['mathcmp'])
    versions = {(s, v) for v, s, _ in syms}
    missing = ['%s@%s' % (f, v) for f in LIBM
               for v in ('GLIBC_2.2.5', 'GLIBC_2.29')
               if (f, v) not in versions]
    result.check('mathcmp: binds both versions', not missing,
                 'missing: %s' % ', '.join(missing) if missing else
                 'GLIBC_2.2.5 (pinned) and GLIBC_2.29 (default) of %s' %
                 ', '.join(LIBM))
    rc, out = run_program([str(built['mathcmp'])], env)
    lines = out.splitlines()
    ok = rc == 0 and all(
        '%s: %d of %d inputs bit-identical, errno alike' %
        (f, MATH_INPUTS, MATH_INPUTS) in lines for f in LIBM)
    result.check('mathcmp: pinned = host', ok, '%s (host glibc %s)\n  %s' % (
        'the pinned versions return the defaults\' bits' if ok else
        'exit %s' % rc, os.confstr('CS_GNU_LIBC_VERSION').split()[-1],
        '\n  '.join(lines)))
    outputs['mathcmp'] = out
  return outputs


# ---------------------------------------------------------------------------
# The Debian 11 root

def mounts_under(path):
  path = os.path.realpath(path)
  with open('/proc/mounts') as f:
    points = [line.split()[1].replace('\\040', ' ') for line in f]
  return [p for p in points if p == path or p.startswith(path + '/')]


def is_bullseye(root):
  v = root / 'etc' / 'debian_version'
  return v.exists() and v.read_text().startswith('11.') and \
      (root / 'lib' / 'x86_64-linux-gnu' / 'libc.so.6').exists()


def make_root():
  """DEB11_ROOT, made if it is missing and can be: (root, None) or (None,
  why not)."""
  if is_bullseye(DEB11_ROOT):
    return DEB11_ROOT, None
  if DEB11_ROOT.exists():
    return None, '%s exists but is no Debian 11 root: remove it' % DEB11_ROOT
  if os.geteuid() != 0:
    return None, 'no %s, and making one takes root' % DEB11_ROOT
  tool = shutil.which('mmdebstrap') or shutil.which('debootstrap')
  if tool is None:
    return None, ('no %s, and neither mmdebstrap nor debootstrap is '
                  'installed' % DEB11_ROOT)
  from archive import host_uris
  try:
    mirror = host_uris()[0]
  except SystemExit:
    return None, 'no Debian archive in the host\'s apt sources'
  tmp = DEB11_ROOT.with_name(DEB11_ROOT.name + '.tmp')
  if mounts_under(tmp):
    return None, '%s has file systems mounted under it: unmount them' % tmp
  shutil.rmtree(tmp, ignore_errors=True)
  tmp.parent.mkdir(parents=True, exist_ok=True)
  logfile = WORK / ('%s.log' % Path(tool).name)
  WORK.mkdir(parents=True, exist_ok=True)
  log('test-sysroot: making a Debian 11 root in %s with %s (minbase; a few '
      'minutes; log in %s)' % (DEB11_ROOT, Path(tool).name, logfile))
  with open(logfile, 'w') as f:
    r = subprocess.run([tool, '--variant=minbase', 'bullseye', str(tmp),
                        mirror], stdout=f, stderr=subprocess.STDOUT)
  if r.returncode or not is_bullseye(tmp):
    left = mounts_under(tmp)
    return None, '%s failed (exit %d; see %s)%s' % (
        Path(tool).name, r.returncode, logfile,
        '; still mounted: %s' % ', '.join(left) if left else '')
  tmp.rename(DEB11_ROOT)
  return DEB11_ROOT, None


def digests(out):
  """{function: digest} of mathcmp's last line."""
  for line in out.splitlines():
    if line.startswith('digests of the pinned results:'):
      return dict(w.split() for w in line.split(':', 1)[1].split(','))
  return {}


def math_in_root(result, rc, out, host_out):
  """Pinned = default must hold in the root as on the host: the same lines
  but the digests. Those compare glibc 2.31's results with the host's,
  which a glibc may round differently in the last bit, pinned or not."""
  def counts(o):
    return [l for l in o.splitlines() if not l.startswith('digests ')]
  ok = rc == 0 and counts(out) == counts(host_out)
  here, there = digests(out), digests(host_out)
  same = [f for f in LIBM if here.get(f) and here.get(f) == there.get(f)]
  other = [f for f in LIBM if f not in same]
  result.check('mathcmp: runs in Debian 11', ok,
               ('pinned = glibc 2.31\'s defaults on every input, as on the '
                'host; the pinned results equal the host\'s for %s%s' % (
                    ', '.join(same) or 'none',
                    '; not for %s (glibc 2.31 and the host\'s differ there, '
                    'pinned or not)' % ', '.join(other) if other else ''))
               if ok else 'exit %s%s' % (rc, diff(host_out, out) or
                                         '\n' + out))


def run_in_root(result, built, host_outputs):
  names = [n for n in ('cxx', 'uvtest', 'mathcmp') if n in host_outputs]
  if not names:
    return
  if os.geteuid() != 0:
    result.skip('bullseye-root', 'chroot needs root: nothing was run in a '
                'Debian 11 root')
    return
  root, why = make_root()
  if root is None:
    result.skip('bullseye-root', why + ': nothing was run in a Debian 11 '
                'root')
    return
  chroot = shutil.which('chroot') or '/usr/sbin/chroot'
  env = {'PATH': '/usr/bin:/bin', 'LANG': 'C', 'HOME': '/'}
  proc = root / 'proc'
  mounted = False
  inside = root / IN_ROOT.lstrip('/')
  try:
    if not os.path.ismount(proc):
      r = subprocess.run(['mount', '-t', 'proc', 'proc', str(proc)],
                         capture_output=True, text=True)
      if r.returncode:
        result.skip('bullseye-root', 'mount -t proc failed (%s): nothing '
                    'was run in a Debian 11 root' % r.stderr.strip())
        return
      mounted = True
    shutil.rmtree(inside, ignore_errors=True)
    inside.mkdir(parents=True)
    for n in names:
      shutil.copy2(built[n], inside / n)
    # glibc's banner (libc.so.6 run as a program), and whether chroot works.
    rc, banner = run_program([chroot, str(root),
                              '/lib/x86_64-linux-gnu/libc.so.6'], env)
    if rc != 0:
      result.skip('bullseye-root', 'chroot %s failed (exit %s): %s' % (
          root, rc, banner.strip()[-300:]))
      return
    log('test-sysroot: %s: Debian %s; %s' % (
        root, (root / 'etc' / 'debian_version').read_text().strip(),
        banner.splitlines()[0]))
    for n in names:
      rc, out = run_program([chroot, str(root), '%s/%s' % (IN_ROOT, n)], env)
      if n == 'mathcmp':
        math_in_root(result, rc, out, host_outputs[n])
        continue
      ok = rc == 0 and out == host_outputs[n]
      result.check('%s: runs in Debian 11' % n, ok,
                   'printed what it printed on the host' if ok else
                   'exit %s%s' % (rc, diff(host_outputs[n], out) or
                                  '\n' + out))
  finally:
    shutil.rmtree(inside, ignore_errors=True)
    if mounted:
      r = subprocess.run(['umount', str(proc)])
      if r.returncode:
        subprocess.run(['umount', '-l', str(proc)])


def main():
  start = time.monotonic()
  result = Result()
  t = time.monotonic()
  root = sysroot.make(sysroot.PACKAGES)
  log('test-sysroot: sysroot %s (%.1f s)' % (root, time.monotonic() - t))
  flags = sysroot.flags(root)
  env = build_env()
  t = time.monotonic()
  built = build(result, flags, env)
  for name in ('cxx', 'uvtest'):
    if name in built:
      check_links(result, name, built[name])
  if 'cxx' in built:
    exported = sorted({s for _, s, defined in dynamic_symbols(built['cxx'])
                       if defined and s in COMPAT_SYMBOLS})
    result.check('cxx: compat symbols hidden', not exported,
                 'exports %s' % ', '.join(exported) if exported else
                 'linked -rdynamic, it exports none of %s\'s %s' %
                 (sysroot.COMPAT_LIB, ', '.join(COMPAT_SYMBOLS)))
  log('test-sysroot: built and inspected in %.1f s' % (time.monotonic() - t))
  t = time.monotonic()
  outputs = run_host(result, built)
  run_in_root(result, built, outputs)
  log('test-sysroot: ran in %.1f s; %.1f s in all' %
      (time.monotonic() - t, time.monotonic() - start))
  print('test-sysroot: %d passed, %d failed' % (result.passed,
                                                 result.failed))
  sys.exit(1 if result.failed else 0)


if __name__ == '__main__':
  main()
