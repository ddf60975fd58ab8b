// nodecure's slow-resource policy (deps/uv/src/slow-resource.c): what a
// timed-out fs request marks and what it never marks (stdio and what shares
// its file, character devices, a reader's back-pressure), expiry with
// backoff, the bound on the list, the counters and uv_fs_slow_resource_
// foreach(), synchronous requests, fork().
//
// Each resource is made slow for real (a FIFO without a writer, a full pipe
// or socket, a pty without input) and timed out with a 20-50 ms budget; the
// Hangman's signal ends the blocked system call. Time bounds are on TTLs of
// 100 ms and more, with margins of a whole TTL, so that they hold on a
// loaded machine and under the sanitizers.

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "uv.h"
#include "uv/timeout.h"
#include "support/uv_loop_helpers.h"

// fs.c's entry point for a request that timed out (threadpool-manager.h),
// used directly where hundreds of real timeouts would only cost time.
extern "C" void uv__slowres_mark(uv_fs_t* req);

namespace {

using uv_test::AwaitReaped;
using uv_test::FsReq;
using uv_test::kNsPerMs;
using uv_test::RunUntil;
using uv_test::Stats;

std::vector<uv_fs_slow_resource_t> Entries() {
  std::vector<uv_fs_slow_resource_t> v;
  uv_fs_slow_resource_foreach(
      [](const uv_fs_slow_resource_t* e, void* arg) {
        static_cast<std::vector<uv_fs_slow_resource_t>*>(arg)->push_back(*e);
      },
      &v);
  for (auto& e : v) e.path = nullptr;  // valid during the callback only
  return v;
}

// Fills a pipe or a socket until a blocking write would block.
void Fill(int fd) {
  int flags = fcntl(fd, F_GETFL);
  ASSERT_EQ(0, fcntl(fd, F_SETFL, flags | O_NONBLOCK));
  char chunk[4096];
  memset(chunk, 'x', sizeof(chunk));
  while (write(fd, chunk, sizeof(chunk)) > 0) {
  }
  ASSERT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK);
  // A byte at a time too: a socket may take a small write after a big one
  // was refused.
  while (write(fd, chunk, 1) > 0) {
  }
  ASSERT_EQ(0, fcntl(fd, F_SETFL, flags));
}

// Points `target` (0, 1 or 2) at `fd` until destroyed. Restores before the
// test asserts: gtest writes to fd 1.
class Redirect {
 public:
  Redirect(int target, int fd) : target_(target), saved_(dup(target)) {
    fflush(stdout);
    EXPECT_GE(saved_, 0);
    EXPECT_EQ(target, dup2(fd, target));
  }
  ~Redirect() { Restore(); }
  void Restore() {
    if (saved_ < 0) return;
    dup2(saved_, target_);
    close(saved_);
    saved_ = -1;
  }

 private:
  const int target_;
  int saved_;
};

class SlowResourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(0, uv_threadpool_set_timeout(0));
    uv_threadpool_set_thread_timeout(UV_THREADPOOL_TIMEOUT_DEFAULT);
    ASSERT_TRUE(AwaitReaped());
    uv_fs_slow_resource_clear();
    ASSERT_EQ(0, uv_fs_slow_resource_set_policy(
                     UV_FS_SLOW_RESOURCE_BASE_TTL_MS,
                     UV_FS_SLOW_RESOURCE_MAX_TTL_MS));
    ASSERT_EQ(0, uv_loop_init(&loop_));
    char dir[] = "/tmp/uv-slowres-XXXXXX";
    ASSERT_NE(nullptr, mkdtemp(dir));
    dir_ = dir;
    fifo_ = dir_ + "/fifo";
    ASSERT_EQ(0, mkfifo(fifo_.c_str(), 0600));
    before_ = Stats();
  }
  void TearDown() override {
    uv_fs_slow_resource_clear();
    uv_fs_slow_resource_set_policy(UV_FS_SLOW_RESOURCE_BASE_TTL_MS,
                                   UV_FS_SLOW_RESOURCE_MAX_TTL_MS);
    ASSERT_EQ(0, uv_run(&loop_, UV_RUN_DEFAULT));
    ASSERT_EQ(0, uv_loop_close(&loop_));
    unlink(fifo_.c_str());
    rmdir(dir_.c_str());
    EXPECT_TRUE(AwaitReaped());
  }

  // Submits with a budget through the thread override, as Node's bindings
  // do, and runs the loop until the abandoned work has returned. Returns the
  // request's status (UV_ETIMEDOUT expected), or 1 if the work did not
  // return; asserts nothing, for use while fd 1 is not gtest's.
  template <typename F>
  ssize_t TimeOutQuietly(FsReq* r, F submit) {
    uint64_t saved = uv_threadpool_set_thread_timeout(30);
    int err = submit(&r->req);
    uv_threadpool_set_thread_timeout(saved);
    if (err != 0) return err;
    if (!RunUntil(&loop_, [&] { return r->reclaims == 1; })) return 1;
    return r->result;
  }
  template <typename F>
  void TimeOut(FsReq* r, F submit) {
    ASSERT_EQ(UV_ETIMEDOUT, TimeOutQuietly(r, submit));
  }

  // What an asynchronous request returns when submitted with a budget (only
  // requests that would be timed are checked against the list): 0 if it
  // was accepted, then run to its end, or UV_ESLOWRESOURCE if refused.
  template <typename F>
  int Submit(F submit) {
    FsReq r;
    uint64_t saved = uv_threadpool_set_thread_timeout(30);
    int err = submit(&r.req);
    uv_threadpool_set_thread_timeout(saved);
    if (err != 0) {
      EXPECT_EQ(0, r.calls);
      return err;
    }
    EXPECT_TRUE(RunUntil(&loop_, [&] {
      return r.calls == 1 && (r.result != UV_ETIMEDOUT || r.reclaims == 1);
    }));
    return 0;
  }

  // The ReadDoS case: an open of a FIFO that never gets a writer.
  void TimeOutFifoOpen(const std::string& path) {
    FsReq r;
    TimeOut(&r, [&](uv_fs_t* req) {
      return uv_fs_open(&loop_, req, path.c_str(), O_RDONLY, 0, FsReq::Done);
    });
  }

  void TimeOutRead(int fd) {
    FsReq r;
    TimeOut(&r, [&](uv_fs_t* req) {
      return uv_fs_read(&loop_, req, fd, &r.buf, 1, -1, FsReq::Done);
    });
  }

  void TimeOutWrite(int fd) {
    FsReq r;
    TimeOut(&r, [&](uv_fs_t* req) {
      return uv_fs_write(&loop_, req, fd, &r.buf, 1, -1, FsReq::Done);
    });
  }

  uint64_t Exempted() {
    return Stats().slow_resource_exempt - before_.slow_resource_exempt;
  }
  uint64_t Marked() {
    return Stats().slow_resource_marks - before_.slow_resource_marks;
  }

  // The only entry (the test made one).
  uv_fs_slow_resource_t Only() {
    std::vector<uv_fs_slow_resource_t> v = Entries();
    EXPECT_EQ(1u, v.size());
    return v.empty() ? uv_fs_slow_resource_t{} : v[0];
  }

  uv_loop_t loop_;
  std::string dir_;
  std::string fifo_;
  uv_threadpool_stats_t before_;
};

// --- What is marked: the ReadDoS case still fails fast.

TEST_F(SlowResourceTest, FifoOpenIsMarkedAndRefusedAtOnce) {
  TimeOutFifoOpen(fifo_);
  EXPECT_EQ(1u, uv_fs_slow_resource_count());
  EXPECT_EQ(1u, Marked());
  EXPECT_EQ(0u, Exempted());

  // The second access fails in the call itself: no worker, no budget.
  EXPECT_EQ(UV_ESLOWRESOURCE, Submit([&](uv_fs_t* req) {
    return uv_fs_open(&loop_, req, fifo_.c_str(), O_RDONLY, 0, FsReq::Done);
  }));
  EXPECT_EQ(before_.slow_resource_hits + 1, Stats().slow_resource_hits);
}

TEST_F(SlowResourceTest, FifoReadIsMarkedAndRefusedAtOnce) {
  int fd = open(fifo_.c_str(), O_RDWR);  // a writer that never writes
  ASSERT_GE(fd, 0);
  TimeOutRead(fd);
  EXPECT_EQ(1, uv_fs_slow_resource_check_fd(fd));
  char byte;
  uv_buf_t buf = uv_buf_init(&byte, 1);
  EXPECT_EQ(UV_ESLOWRESOURCE, Submit([&](uv_fs_t* req) {
    return uv_fs_read(&loop_, req, fd, &buf, 1, -1, FsReq::Done);
  }));
  uv_fs_t req;
  EXPECT_EQ(0, uv_fs_close(nullptr, &req, fd, nullptr));
  uv_fs_req_cleanup(&req);
}

// --- What is never marked.

TEST_F(SlowResourceTest, FifoWriteBackPressureIsNotMarked) {
  int fd = open(fifo_.c_str(), O_RDWR);  // a reader that never reads
  ASSERT_GE(fd, 0);
  Fill(fd);
  TimeOutWrite(fd);
  EXPECT_EQ(0u, uv_fs_slow_resource_count());
  EXPECT_EQ(0, uv_fs_slow_resource_check_fd(fd));
  EXPECT_EQ(0u, Marked());
  EXPECT_EQ(1u, Exempted());
  close(fd);
}

TEST_F(SlowResourceTest, SocketWriteBackPressureIsNotMarked) {
  int sv[2];
  ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  Fill(sv[0]);
  TimeOutWrite(sv[0]);
  EXPECT_EQ(0u, uv_fs_slow_resource_count());
  EXPECT_EQ(1u, Exempted());
  close(sv[0]);
  close(sv[1]);
}

// A log shipper that stops reading stdout (pino/sonic-boom write with
// fs.write(1)).
TEST_F(SlowResourceTest, StdoutBackPressureIsNotMarked) {
  int p[2];
  ASSERT_EQ(0, pipe(p));
  Fill(p[1]);
  ssize_t status;
  {
    Redirect out(STDOUT_FILENO, p[1]);  // full: gtest must not print now
    FsReq r;
    status = TimeOutQuietly(&r, [&](uv_fs_t* req) {
      return uv_fs_write(&loop_, req, STDOUT_FILENO, &r.buf, 1, -1,
                         FsReq::Done);
    });
  }
  ASSERT_EQ(UV_ETIMEDOUT, status);
  EXPECT_EQ(0u, uv_fs_slow_resource_count());
  EXPECT_EQ(1u, Exempted());
  close(p[0]);
  close(p[1]);
}

// A read side that would be marked elsewhere (a pipe without data) is not
// when it is stdin: by fd number, and by device and inode through another
// fd to the same pipe.
TEST_F(SlowResourceTest, StdinAndAnotherFdToItsPipeAreNotMarked) {
  int p[2];
  ASSERT_EQ(0, pipe(p));  // p[1] stays open: reads block
  {
    Redirect in(STDIN_FILENO, p[0]);
    TimeOutRead(STDIN_FILENO);
    TimeOutRead(p[0]);
  }
  EXPECT_EQ(0u, uv_fs_slow_resource_count());
  EXPECT_EQ(0u, Marked());
  EXPECT_EQ(2u, Exempted());

  // The same reads of a pipe that is not stdio are marked.
  TimeOutRead(p[0]);
  EXPECT_EQ(1u, uv_fs_slow_resource_count());
  close(p[0]);
  close(p[1]);
}

#if defined(__linux__)
// A path to the file that stdin refers to: the FIFO of the ReadDoS test,
// not marked once it is the process's own stdin.
TEST_F(SlowResourceTest, PathToTheStdinFileIsNotMarked) {
  int fd = open(fifo_.c_str(), O_RDONLY | O_NONBLOCK);  // no writer
  ASSERT_GE(fd, 0);
  {
    Redirect in(STDIN_FILENO, fd);
    TimeOutFifoOpen(fifo_);
  }
  EXPECT_EQ(0u, uv_fs_slow_resource_count());
  EXPECT_EQ(1u, Exempted());
  close(fd);
}

// /dev/stdin is a "magic" link the dentry cache cannot resolve: not marked
// by its name.
TEST_F(SlowResourceTest, DevStdinIsNotMarked) {
  int fd = open(fifo_.c_str(), O_RDONLY | O_NONBLOCK);  // no writer
  ASSERT_GE(fd, 0);
  {
    Redirect in(STDIN_FILENO, fd);
    TimeOutFifoOpen("/dev/stdin");  // reopens the FIFO: waits for a writer
  }
  EXPECT_EQ(0u, uv_fs_slow_resource_count());
  EXPECT_EQ(0, uv_fs_slow_resource_check_path("/dev/stdin"));
  EXPECT_EQ(1u, Exempted());
  close(fd);
}
#endif

// A TTY that nobody types on.
TEST_F(SlowResourceTest, TtyReadIsNotMarked) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
    GTEST_SKIP() << "no pseudo-terminal";
  int tty = open(ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(tty, 0);
  TimeOutRead(tty);
  EXPECT_EQ(0u, uv_fs_slow_resource_count());
  EXPECT_EQ(1u, Exempted());
  close(tty);
  close(master);
}

// --- Expiry and backoff.

TEST_F(SlowResourceTest, EntriesExpireAndTheirTtlDoublesOnEachNewMark) {
  ASSERT_EQ(0, uv_fs_slow_resource_set_policy(200, 60000));
  uint64_t ttl = 200;
  for (unsigned int strikes = 1; strikes <= 3; strikes++, ttl *= 2) {
    TimeOutFifoOpen(fifo_);
    uv_fs_slow_resource_t e = Only();
    EXPECT_EQ(strikes, e.strikes);
    // Read right after the mark: more than the previous TTL is left.
    EXPECT_LE(e.expires_in_ms, ttl);
    EXPECT_GT(e.expires_in_ms, ttl / 2);
    // Expiry is a property of time: wait on the loop for it.
    ASSERT_TRUE(RunUntil(&loop_,
                         [] { return uv_fs_slow_resource_count() == 0; }));
    EXPECT_EQ(0, Submit([&](uv_fs_t* req) {
      return uv_fs_stat(&loop_, req, fifo_.c_str(), FsReq::Done);
    }));
  }
  EXPECT_EQ(3u, Marked());
}

TEST_F(SlowResourceTest, BackoffStopsAtTheMaximumTtl) {
  ASSERT_EQ(0, uv_fs_slow_resource_set_policy(200, 60000));
  TimeOutFifoOpen(fifo_);
  ASSERT_TRUE(RunUntil(&loop_, [] { return uv_fs_slow_resource_count() == 0; }));
  // Policies apply to later marks; the strike is remembered.
  ASSERT_EQ(0, uv_fs_slow_resource_set_policy(200, 300));
  TimeOutFifoOpen(fifo_);
  uv_fs_slow_resource_t e = Only();
  EXPECT_EQ(2u, e.strikes);
  EXPECT_LE(e.expires_in_ms, 300u);  // not 400
  EXPECT_GT(e.expires_in_ms, 200u);
}

TEST_F(SlowResourceTest, StrikesAreForgottenAfterTheMaximumTtl) {
  ASSERT_EQ(0, uv_fs_slow_resource_set_policy(50, 100));
  TimeOutFifoOpen(fifo_);
  ASSERT_TRUE(RunUntil(&loop_, [] { return uv_fs_slow_resource_count() == 0; }));
  // Past the expiry plus the maximum TTL (a property of time, not a wait
  // for another thread).
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  TimeOutFifoOpen(fifo_);
  EXPECT_EQ(1u, Only().strikes);
}

TEST_F(SlowResourceTest, PermanentPolicyNeverExpires) {
  ASSERT_EQ(0, uv_fs_slow_resource_set_policy(0, 0));
  TimeOutFifoOpen(fifo_);
  EXPECT_EQ(0u, Only().expires_in_ms);
  // Longer than any TTL the tests use.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(1u, uv_fs_slow_resource_count());
  EXPECT_EQ(1, uv_fs_slow_resource_check_path(fifo_.c_str()));
}

TEST_F(SlowResourceTest, PolicyArguments) {
  EXPECT_EQ(UV_EINVAL, uv_fs_slow_resource_set_policy(100, 99));
  EXPECT_EQ(0, uv_fs_slow_resource_set_policy(100, 100));
  EXPECT_EQ(0, uv_fs_slow_resource_set_policy(0, 0));
  EXPECT_EQ(0, uv_fs_slow_resource_set_policy(0, 1));  // max ignored
  EXPECT_EQ(0, uv_fs_slow_resource_set_policy(UINT64_MAX, UINT64_MAX));
  EXPECT_EQ(0, uv_fs_slow_resource_set_ttl(50));       // = (50, 50)
}

// --- Bounds and observability.

// Marks `n` distinct paths (no device or inode: they do not exist).
void MarkPaths(const std::string& prefix, int n) {
  for (int i = 0; i < n; i++) {
    std::string path = prefix + std::to_string(i);
    uv_fs_t req;
    memset(&req, 0, sizeof(req));
    req.fs_type = UV_FS_OPEN;
    req.file = -1;
    req.path = path.c_str();
    uv__slowres_mark(&req);
  }
}

TEST_F(SlowResourceTest, FullListEvictsRememberedEntriesNeverActiveOnes) {
  const std::string expired = dir_ + "/none/expired-";
  const std::string active = dir_ + "/none/active-";
  ASSERT_EQ(0, uv_fs_slow_resource_set_policy(50, 60000));
  MarkPaths(expired, 10);
  ASSERT_TRUE(RunUntil(&loop_, [] { return uv_fs_slow_resource_count() == 0; }));
  ASSERT_EQ(0, uv_fs_slow_resource_set_policy(60000, 60000));

  // 256 active entries: the 10 remembered ones made room.
  MarkPaths(active, 256);
  EXPECT_EQ(256u, uv_fs_slow_resource_count());
  EXPECT_EQ(0u, Stats().slow_resource_dropped - before_.slow_resource_dropped);

  // Full of active entries: a new mark is dropped, nothing is evicted.
  MarkPaths(dir_ + "/none/attacker-", 100);
  EXPECT_EQ(256u, uv_fs_slow_resource_count());
  EXPECT_EQ(100u, Stats().slow_resource_dropped - before_.slow_resource_dropped);
  EXPECT_EQ(1, uv_fs_slow_resource_check_path((active + "0").c_str()));
  EXPECT_EQ(1, uv_fs_slow_resource_check_path((active + "255").c_str()));
  EXPECT_EQ(0, uv_fs_slow_resource_check_path((dir_ + "/none/attacker-0").c_str()));

  // A resource already listed is marked again, full or not.
  MarkPaths(active, 1);
  EXPECT_EQ(100u, Stats().slow_resource_dropped - before_.slow_resource_dropped);
  EXPECT_EQ(10u + 256 + 1, Marked());
}

TEST_F(SlowResourceTest, ForeachReportsActiveEntries) {
  int fd = open(fifo_.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  TimeOutRead(fd);
  std::string other = dir_ + "/other";
  ASSERT_EQ(0, mkfifo(other.c_str(), 0600));
  TimeOutFifoOpen(other);

  struct Seen {
    std::vector<uv_fs_slow_resource_t> entries;
    std::vector<std::string> paths;
  } seen;
  uv_fs_slow_resource_foreach(
      [](const uv_fs_slow_resource_t* e, void* arg) {
        Seen* s = static_cast<Seen*>(arg);
        s->entries.push_back(*e);
        s->paths.push_back(e->path != nullptr ? e->path : "");
      },
      &seen);
  ASSERT_EQ(2u, seen.entries.size());
  // Least recently marked first: the fd, then the path.
  EXPECT_EQ(fd, seen.entries[0].fd);
  EXPECT_EQ("", seen.paths[0]);
  EXPECT_EQ(-1, seen.entries[1].fd);
  EXPECT_EQ(other, seen.paths[1]);
  for (const uv_fs_slow_resource_t& e : seen.entries) {
    EXPECT_EQ(1u, e.strikes);
    EXPECT_GT(e.expires_in_ms, 0u);
    EXPECT_LE(e.expires_in_ms, UV_FS_SLOW_RESOURCE_BASE_TTL_MS);
  }
#if defined(__linux__)
  struct stat st;
  ASSERT_EQ(0, stat(fifo_.c_str(), &st));
  EXPECT_TRUE(seen.entries[0].has_id);
  EXPECT_EQ(static_cast<uint64_t>(st.st_ino), seen.entries[0].ino);
  ASSERT_EQ(0, stat(other.c_str(), &st));
  EXPECT_TRUE(seen.entries[1].has_id);
  EXPECT_EQ(static_cast<uint64_t>(st.st_ino), seen.entries[1].ino);
#endif
  uv_fs_t req;
  EXPECT_EQ(0, uv_fs_close(nullptr, &req, fd, nullptr));
  uv_fs_req_cleanup(&req);
  unlink(other.c_str());
}

// --- Synchronous requests: the list protects the threadpool.

TEST_F(SlowResourceTest, SynchronousRequestsAreNeverRefused) {
  TimeOutFifoOpen(fifo_);
  ASSERT_EQ(1u, uv_fs_slow_resource_count());
  // Even with a budget in effect for the calling thread.
  uint64_t saved = uv_threadpool_set_thread_timeout(30);
  uv_fs_t req;
  int stat_err = uv_fs_stat(nullptr, &req, fifo_.c_str(), nullptr);
  uv_fs_req_cleanup(&req);
  // O_NONBLOCK: an open for reading that does not wait for a writer.
  int fd = uv_fs_open(nullptr, &req, fifo_.c_str(), O_RDONLY | O_NONBLOCK, 0,
                      nullptr);
  uv_fs_req_cleanup(&req);
  int fstat_err = fd < 0 ? fd : uv_fs_fstat(nullptr, &req, fd, nullptr);
  uv_fs_req_cleanup(&req);
  uv_threadpool_set_thread_timeout(saved);
  EXPECT_EQ(0, stat_err);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(0, fstat_err);
  EXPECT_EQ(before_.slow_resource_hits, Stats().slow_resource_hits);

  // The same requests with a callback are refused.
  EXPECT_EQ(UV_ESLOWRESOURCE, Submit([&](uv_fs_t* req) {
    return uv_fs_stat(&loop_, req, fifo_.c_str(), FsReq::Done);
  }));
  EXPECT_EQ(UV_ESLOWRESOURCE, Submit([&](uv_fs_t* req) {
    return uv_fs_fstat(&loop_, req, fd, FsReq::Done);
  }));
  EXPECT_EQ(before_.slow_resource_hits + 2, Stats().slow_resource_hits);
  EXPECT_EQ(0, uv_fs_close(nullptr, &req, fd, nullptr));
  uv_fs_req_cleanup(&req);
}

// --- fork(): the child's lock is usable, whatever another thread was doing.

// Forks while another thread holds the list's lock (inside foreach's
// callback, which runs with it held): a child that inherited the lock as
// held by a thread it does not have would hang (alarm() ends it).
TEST_F(SlowResourceTest, ForkedChildCanUseTheList) {
  ASSERT_EQ(0, uv_fs_slow_resource_set_policy(60000, 60000));
  const std::string prefix = dir_ + "/none/";
  std::atomic<bool> stop{false};
  std::atomic<bool> holding{false};
  std::thread hammer([&] {
    for (int i = 0; !stop; i++) {
      MarkPaths(prefix + std::to_string(i % 7) + "-", 4);
      uv_fs_slow_resource_foreach(
          [](const uv_fs_slow_resource_t*, void* arg) {
            static_cast<std::atomic<bool>*>(arg)->store(true);
            std::this_thread::sleep_for(std::chrono::microseconds(500));
          },
          &holding);
      holding = false;
      uv_fs_slow_resource_check_path((prefix + "0-0").c_str());
      if (i % 3 == 0) uv_fs_slow_resource_clear();
    }
  });

  for (int k = 0; k < 10; k++) {
    while (!holding) std::this_thread::yield();
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      alarm(3);  // a lock left held would hang: die of SIGALRM instead
      unsigned int n = 0;
      uv_fs_slow_resource_foreach(
          [](const uv_fs_slow_resource_t*, void* arg) {
            ++*static_cast<unsigned int*>(arg);
          },
          &n);
      if (n != uv_fs_slow_resource_count()) _exit(2);
      MarkPaths(prefix + "child-", 3);
      if (!uv_fs_slow_resource_check_path((prefix + "child-2").c_str()))
        _exit(3);
      uv_fs_slow_resource_clear();
      _exit(uv_fs_slow_resource_count() == 0 ? 0 : 4);
    }
    int status = 0;
    ASSERT_EQ(pid, waitpid(pid, &status, 0));
    EXPECT_TRUE(WIFEXITED(status)) << "child killed by signal "
                                   << (WIFSIGNALED(status) ? WTERMSIG(status)
                                                           : 0);
    EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  stop = true;
  hammer.join();
}

}  // namespace
