// fs-hop.c: a stoppable section's synchronous path calls on a hang-prone
// mount run on the Priority Executor. This binary declares tmpfs hang-prone
// (UV_FS_HANG_PRONE_TYPES is read once, at the first uv_sync_stop_register(),
// so it is set before any test runs) and works in /dev/shm: results come back
// as in place, writes included; under random stops every call returns its result or
// UV_ETIMEDOUT, the abandoned calls' threads end and no fd is left open.

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"

namespace {

const int kSetTypes = setenv("UV_FS_HANG_PRONE_TYPES", "tmpfs", 0);

std::atomic<uint64_t> hop_token{0};

uint64_t HopToken(void*) {
  return hop_token.load();
}

bool ShmIsTmpfs() {
  struct statfs s;
  return statfs("/dev/shm", &s) == 0 && s.f_type == 0x01021994;
}

int OpenFds() {
  uv_fs_t req;
  int n = uv_fs_scandir(nullptr, &req, "/proc/self/fd", 0, nullptr);
  uv_fs_req_cleanup(&req);
  return n;
}

uint64_t Hopped() {
  uv_threadpool_stats_t stats;
  uv_threadpool_get_stats(&stats);
  return stats.hopped;
}

uint64_t AbandonedLive() {
  uv_threadpool_stats_t stats;
  uv_threadpool_get_stats(&stats);
  return stats.abandoned_live;
}

class FsHop : public ::testing::Test {
 protected:
  void SetUp() override {
    (void) kSetTypes;
    if (!ShmIsTmpfs()) GTEST_SKIP() << "/dev/shm is not tmpfs";
    char tmpl[] = "/dev/shm/uv-fs-hop-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    file_ = dir_ + "/f";
    int fd = open(file_.c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, "nodecure", 8), 8);
    close(fd);
    ASSERT_EQ(symlink("f", (dir_ + "/l").c_str()), 0);
    ASSERT_EQ(mkfifo((dir_ + "/fifo").c_str(), 0644), 0);
  }

  void TearDown() override {
    if (dir_.empty()) return;
    unlink((dir_ + "/fifo").c_str());
    unlink((dir_ + "/l").c_str());
    unlink(file_.c_str());
    rmdir(dir_.c_str());
  }

  std::string dir_;
  std::string file_;
};

TEST_F(FsHop, ResultsComeBackAsInPlace) {
  std::thread owner([&] {
    uv_sync_stop_t* stop = uv_sync_stop_register(HopToken, nullptr);
    ASSERT_NE(stop, nullptr);
    uint64_t hopped = Hopped();
    hop_token = 1;  // every call is a section
    uv_fs_t req;

    EXPECT_EQ(uv_fs_stat(nullptr, &req, file_.c_str(), nullptr), 0);
    EXPECT_EQ(req.ptr, &req.statbuf);
    EXPECT_EQ(req.statbuf.st_size, 8u);
    uv_fs_req_cleanup(&req);

    EXPECT_EQ(uv_fs_lstat(nullptr, &req, (dir_ + "/l").c_str(), nullptr), 0);
    EXPECT_TRUE(S_ISLNK(req.statbuf.st_mode));
    uv_fs_req_cleanup(&req);

    EXPECT_EQ(uv_fs_stat(nullptr, &req, (dir_ + "/no").c_str(), nullptr),
              UV_ENOENT);
    uv_fs_req_cleanup(&req);

    EXPECT_EQ(uv_fs_readlink(nullptr, &req, (dir_ + "/l").c_str(), nullptr),
              0);
    EXPECT_STREQ(static_cast<char*>(req.ptr), "f");
    uv_fs_req_cleanup(&req);

    EXPECT_EQ(uv_fs_realpath(nullptr, &req, (dir_ + "/l").c_str(), nullptr),
              0);
    EXPECT_EQ(std::string(static_cast<char*>(req.ptr)), file_);
    uv_fs_req_cleanup(&req);

    EXPECT_EQ(uv_fs_scandir(nullptr, &req, dir_.c_str(), 0, nullptr), 3);
    uv_dirent_t ent;
    int n = 0;
    while (uv_fs_scandir_next(&req, &ent) == 0) n++;
    EXPECT_EQ(n, 3);
    uv_fs_req_cleanup(&req);

    int fd = uv_fs_open(nullptr, &req, file_.c_str(), O_RDONLY, 0, nullptr);
    uv_fs_req_cleanup(&req);
    ASSERT_GE(fd, 0);
    // The fd's calls hop too: fstat, a read into two buffers, close.
    EXPECT_EQ(uv_fs_fstat(nullptr, &req, fd, nullptr), 0);
    EXPECT_EQ(req.ptr, &req.statbuf);
    EXPECT_EQ(req.statbuf.st_size, 8u);
    uv_fs_req_cleanup(&req);
    char a[3];
    char b[16];
    uv_buf_t bufs[] = {uv_buf_init(a, sizeof(a)), uv_buf_init(b, sizeof(b))};
    EXPECT_EQ(uv_fs_read(nullptr, &req, fd, bufs, 2, 0, nullptr), 8);
    uv_fs_req_cleanup(&req);
    EXPECT_EQ(std::string(a, 3) + std::string(b, 5), "nodecure");
    EXPECT_EQ(uv_fs_read(nullptr, &req, fd, bufs, 2, 8, nullptr), 0);  // EOF
    uv_fs_req_cleanup(&req);
    // At the current position: a pread() there, the position then moved.
    uv_buf_t first = uv_buf_init(a, sizeof(a));
    EXPECT_EQ(uv_fs_read(nullptr, &req, fd, &first, 1, -1, nullptr), 3);
    uv_fs_req_cleanup(&req);
    EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 3);
    uv_buf_t rest = uv_buf_init(b, sizeof(b));
    EXPECT_EQ(uv_fs_read(nullptr, &req, fd, &rest, 1, -1, nullptr), 5);
    uv_fs_req_cleanup(&req);
    EXPECT_EQ(std::string(a, 3) + std::string(b, 5), "nodecure");
    EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 8);
    EXPECT_EQ(uv_fs_close(nullptr, &req, fd, nullptr), 0);
    uv_fs_req_cleanup(&req);
    EXPECT_EQ(fcntl(fd, F_GETFD), -1);  // closed

    EXPECT_EQ(Hopped() - hopped, 13u);

    // Creating opens hop, and so do the writes of an fd a hop opened:
    // through a duplicate of it (closed again), from a copy of the data, at
    // the current position (which the duplicate shares) or at an offset.
    uint64_t before = Hopped();
    int fds = OpenFds();
    const std::string c = dir_ + "/c";
    fd = uv_fs_open(nullptr, &req, c.c_str(), O_CREAT | O_TRUNC | O_RDWR,
                    0644, nullptr);
    uv_fs_req_cleanup(&req);
    ASSERT_GE(fd, 0);
    char node[] = "node";
    char cure[] = "cure";
    uv_buf_t two[] = {uv_buf_init(node, 4), uv_buf_init(cure, 4)};
    EXPECT_EQ(uv_fs_write(nullptr, &req, fd, two, 2, -1, nullptr), 8);
    uv_fs_req_cleanup(&req);
    EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 8);
    EXPECT_EQ(uv_fs_write(nullptr, &req, fd, two, 1, 2, nullptr), 4);
    uv_fs_req_cleanup(&req);
    EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 8);
    // More buffers than uv_fs_t's own array holds (a copy libuv allocates).
    uv_buf_t six[6];
    for (uv_buf_t& buf : six) buf = uv_buf_init(node, 1);
    EXPECT_EQ(uv_fs_write(nullptr, &req, fd, six, 6, -1, nullptr), 6);
    uv_fs_req_cleanup(&req);
    EXPECT_EQ(uv_fs_fstat(nullptr, &req, fd, nullptr), 0);
    EXPECT_EQ(req.statbuf.st_size, 14u);
    uv_fs_req_cleanup(&req);
    EXPECT_EQ(uv_fs_close(nullptr, &req, fd, nullptr), 0);
    uv_fs_req_cleanup(&req);
    EXPECT_EQ(Hopped() - before, 6u);
    EXPECT_EQ(OpenFds(), fds);
    char back[32];
    int in = open(c.c_str(), O_RDONLY);
    ASSERT_GE(in, 0);
    EXPECT_EQ(read(in, back, sizeof(back)), 14);
    close(in);
    EXPECT_EQ(std::string(back, 14), "nonoderennnnnn");
    unlink(c.c_str());
    before = Hopped();

    // Without a section: in place.
    hop_token = 0;
    EXPECT_EQ(uv_fs_stat(nullptr, &req, file_.c_str(), nullptr), 0);
    uv_fs_req_cleanup(&req);
    EXPECT_EQ(Hopped(), before);
    uv_sync_stop_unregister(stop);
  });
  owner.join();
}

// Random stops: a requester stops the section in progress after 0 to 400 us.
// A FIFO's open without writer never returns unless stopped. Each write puts
// a mark of its own at an offset of its own: one that returned must be in
// the file, one stopped with outcome "none" (uv_sync_stop_call_abandoned()
// 0) must never land, even later; one abandoned while it ran may.
TEST_F(FsHop, RandomStopsAbandonCleanly) {
  enum Outcome { kLanded, kNever, kMayLand };
  std::vector<std::pair<uint32_t, Outcome>> writes;
  const std::string wfile = dir_ + "-w";  // beside: scandir counts dir_
  const int fds = OpenFds();
  const uint64_t abandoned_live = AbandonedLive();
  std::atomic<uv_sync_stop_t*> owner_stop{nullptr};
  std::atomic<bool> done{false};
  std::atomic<bool> requester_done{false};
  int stopped = 0;
  int refused = 0;
  std::thread owner([&] {
    // However this thread ends (a failed ASSERT returns), the requester
    // stops requesting.
    struct Done {
      std::atomic<bool>* done;
      ~Done() { *done = true; }
    } set_done{&done};
    uv_sync_stop_t* stop = uv_sync_stop_register(HopToken, nullptr);
    ASSERT_NE(stop, nullptr);
    // The files are opened in sections (so that their fds are a hop's)
    // before the requester starts: a stop of these would fail the setup.
    hop_token = 1;
    uv_fs_t open_req;
    const int kept_fd = uv_fs_open(nullptr, &open_req, file_.c_str(),
                                   O_RDONLY, 0, nullptr);
    uv_fs_req_cleanup(&open_req);
    ASSERT_GE(kept_fd, 0);
    const int kept_wfd = uv_fs_open(nullptr, &open_req, wfile.c_str(),
                                    O_CREAT | O_RDWR, 0644, nullptr);
    uv_fs_req_cleanup(&open_req);
    ASSERT_GE(kept_wfd, 0);
    owner_stop = stop;
    // Writes mark i at offset 4 * i and records the outcome; 0 or
    // UV_ETIMEDOUT.
    auto write_mark = [&](uv_fs_t* req, int i) {
      uint32_t mark = i;
      uv_buf_t buf = uv_buf_init(reinterpret_cast<char*>(&mark), 4);
      int r = uv_fs_write(nullptr, req, kept_wfd, &buf, 1, 4 * i, nullptr);
      EXPECT_TRUE(r == 4 || r == UV_ETIMEDOUT) << r;
      writes.emplace_back(i, r == 4 ? kLanded
                             : uv_sync_stop_call_abandoned() ? kMayLand
                                                             : kNever);
      mark = 0;  // the hop wrote from a copy
      return r == 4 ? 0 : r;
    };
    std::mt19937 rng(42);
    for (int i = 2; i <= 850; i++) {
      hop_token = i;
      uv_fs_t req;
      int r;
      int op = rng() % 5;
      if (op == 0) {
        r = uv_fs_open(nullptr, &req, (dir_ + "/fifo").c_str(), O_RDONLY, 0,
                       nullptr);
        EXPECT_TRUE(r == UV_ETIMEDOUT) << r;
        uv_fs_req_cleanup(&req);
        if (uv_sync_stop_take() != 0) stopped++;
        // At once, while that open is abandoned: a read on the mount is
        // refused (or reads, if the open already returned); either way its
        // cleanup must not free the caller's buffer list (a stack array).
        char c[8];
        uv_buf_t buf = uv_buf_init(c, sizeof(c));
        hop_token = ++i;
        int n = uv_fs_read(nullptr, &req, kept_fd, &buf, 1, 0, nullptr);
        EXPECT_TRUE(n == 8 || n == UV_ETIMEDOUT) << n;
        EXPECT_EQ(req.bufs, nullptr);
        if (n == UV_ETIMEDOUT) {
          // Refused: so is a write, which then never lands.
          uv_fs_req_cleanup(&req);
          hop_token = ++i;
          n = write_mark(&req, i) == 0 ? 8 : UV_ETIMEDOUT;
        }
        r = n == 8 ? 0 : n;  // accounted below, as the other calls
      } else if (op == 1) {
        r = uv_fs_stat(nullptr, &req, file_.c_str(), nullptr);
        EXPECT_TRUE(r == 0 || r == UV_ETIMEDOUT) << r;
        if (r == 0) EXPECT_EQ(req.statbuf.st_size, 8u);
      } else if (op == 4) {
        r = write_mark(&req, i);
      } else if (op == 2) {
        r = uv_fs_scandir(nullptr, &req, dir_.c_str(), 0, nullptr);
        EXPECT_TRUE(r == 3 || r == UV_ETIMEDOUT) << r;
      } else {
        r = uv_fs_open(nullptr, &req, file_.c_str(), O_RDONLY, 0, nullptr);
        EXPECT_TRUE(r >= 0 || r == UV_ETIMEDOUT) << r;
        if (r >= 0) {
          // Read and close on the executor too; a read may be stopped or
          // refused, the close never is.
          int fd = r;
          char c[8];
          uv_buf_t buf = uv_buf_init(c, sizeof(c));
          uv_fs_req_cleanup(&req);
          r = uv_fs_read(nullptr, &req, fd, &buf, 1, 0, nullptr);
          EXPECT_TRUE(r == 8 || r == UV_ETIMEDOUT) << r;
          if (r == 8) EXPECT_EQ(memcmp(c, "nodecure", 8), 0);
          if (r == UV_ETIMEDOUT && uv_sync_stop_take() != 0) stopped++;
          uv_fs_req_cleanup(&req);
          int c2 = uv_fs_close(nullptr, &req, fd, nullptr);
          EXPECT_TRUE(c2 == 0 || c2 == UV_ETIMEDOUT) << c2;
          if (c2 == UV_ETIMEDOUT) uv_sync_stop_take();
        }
      }
      uv_fs_req_cleanup(&req);
      bool was_refused = false;
      if (r == UV_ETIMEDOUT) {
        if (uv_sync_stop_take() != 0) {
          stopped++;
        } else {
          refused++;  // the mount was stuck: at once
          was_refused = true;
        }
      }
      // Once refused, wait for the abandoned call to return.
      for (int k = 0; k < 1000 && was_refused &&
                      AbandonedLive() > abandoned_live; k++)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    hop_token = 0;
    close(kept_fd);
    close(kept_wfd);
    done = true;
    // No uv_sync_stop_request() may run once the stop is unregistered.
    while (!requester_done) std::this_thread::yield();
    uv_sync_stop_unregister(stop);
  });
  std::thread requester([&] {
    std::mt19937 rng(7);
    uv_sync_stop_t* stop;
    while ((stop = owner_stop.load()) == nullptr) {
      if (done) {  // the owner failed before it published its stop
        requester_done = true;
        return;
      }
      std::this_thread::yield();
    }
    while (!done) {
      uint64_t token = hop_token.load();
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 400));
      uv_sync_stop_request(stop, token);
    }
    requester_done = true;  // the owner may unregister now
  });
  requester.join();
  owner.join();
  EXPECT_GT(stopped, 100);
  EXPECT_GT(refused, 0);
  printf("stopped %d, refused %d\n", stopped, refused);

  // Every abandoned call returns (the Hangman's signal interrupts the FIFO
  // opens), releases what it made and ends its thread.
  for (int i = 0; i < 1000 && AbandonedLive() > abandoned_live; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(AbandonedLive(), abandoned_live);
  EXPECT_EQ(OpenFds(), fds);

  // Every write has returned now: what landed.
  int in = open(wfile.c_str(), O_RDONLY);
  ASSERT_GE(in, 0);
  int counts[3] = {0, 0, 0};
  int landed_late = 0;
  for (const auto& [i, outcome] : writes) {
    uint32_t mark = 0;
    ssize_t n = pread(in, &mark, 4, 4 * i);
    bool landed = n == 4 && mark == i;
    counts[outcome]++;
    if (outcome == kLanded) EXPECT_TRUE(landed) << "write " << i;
    if (outcome == kNever) EXPECT_FALSE(landed) << "write " << i;
    if (outcome == kMayLand && landed) landed_late++;
  }
  close(in);
  unlink(wfile.c_str());
  printf("writes: %d returned, %d stopped before they ran, %d abandoned "
         "while they ran (%d of them landed)\n",
         counts[kLanded], counts[kNever], counts[kMayLand], landed_late);
  EXPECT_GT(counts[kLanded], 0);
  EXPECT_GT(counts[kNever], 0);
}

}  // namespace
