// A canceller plugin in a child process: the child's side (echolab_plugin_host_run) and the
// parent's (echolab_plugin_client_*). The protocol is in echolab_plugin_host.h.
#define _GNU_SOURCE
#include "echolab_plugin_host.h"
#include "echolab_canceller.h"

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { kind_render = 1, kind_capture = 2 };
enum { status_ok = 0, status_render_failed = 1, status_capture_failed = 2 };

/* A plugin's multi-line reason as one line: each run of line breaks and spaces one space, none
   at the end ("line one\nline two\n" reads "line one line two"). */
static void one_line(char *text) {
    char *out = text;
    for (const char *c = text; *c; c++) {
        int blank = *c == '\n' || *c == '\r' || *c == ' ' || *c == '\t';
        if (blank && (out == text || out[-1] == ' ')) continue;
        *out++ = blank ? ' ' : *c;
    }
    while (out > text && out[-1] == ' ') out--;
    *out = 0;
}

/* ---- the child ---- */

// A reply on the frame socket: a parent gone is an error here, not SIGPIPE (the child leaves
// SIGPIPE at its default, for the plugin's sake).
static int reply_all(int fd, const void *data, size_t size) {
    const char *bytes = data;
    while (size > 0) {
        ssize_t done = send(fd, bytes, size, MSG_NOSIGNAL);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return -1;
        bytes += done;
        size -= (size_t)done;
    }
    return 0;
}

// 1: all read; 0: end of input before the first byte; -1: error or end part way.
static int read_all(int fd, void *data, size_t size) {
    char *bytes = data;
    size_t got = 0;
    while (got < size) {
        ssize_t done = read(fd, bytes + got, size - got);
        if (done < 0 && errno == EINTR) continue;
        if (done < 0) return -1;
        if (done == 0) return got == 0 ? 0 : -1;
        got += (size_t)done;
    }
    return 1;
}

static int reply_text(int fd, char *line) {
    one_line(line);
    size_t length = strlen(line);
    line[length] = '\n';
    return reply_all(fd, line, length + 1);
}

// The host's first line, before it loads the plugin: a process that does not send it is not
// EchoLab's plugin host ($ECHOLAB_PLUGIN_HOST naming another program), whatever it did instead.
// Without it, a host that was a shared library crashed "while loading or creating" the plugin,
// and /bin/true "exited … without answering": the plugin, which was fine, took the blame.
#define HOST_GREETING "echolab-plugin-host 1"

static int reply_line(int fd, const char *format, const char *a, long b, long c) {
    char line[768];
    snprintf(line, sizeof line, format, a, b, c);
    return reply_text(fd, line);
}

// The file the library `handle` was loaded from, as /proc/self/maps names it: its device's major
// and minor numbers and its inode (all 0 where it cannot be told). What the parent hashed is
// checked against it: the path may name another file by the time dlopen opens it. Found by the
// library's own dynamic section (an entry symbol may come from a library it depends on).
static void loaded_file(void *handle, unsigned *major, unsigned *minor, unsigned long *inode) {
    *major = *minor = 0;
    *inode = 0;
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_ld) return;
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps) return;
    char line[4352];
    uintptr_t base = (uintptr_t)map->l_ld;
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end, node;
        unsigned high, low;
        if (sscanf(line, "%lx-%lx %*s %*s %x:%x %lu", &start, &end, &high, &low, &node) == 5 && start <= base && base < end) {
            *major = high;
            *minor = low;
            *inode = node;
            break;
        }
    }
    fclose(maps);
}

int echolab_plugin_host_run(const char *plugin_path, int sample_rate, const char *intensity, const char *options) {
    // The child lives only as long as the parent: killed when it dies (even while the plugin
    // hangs in a call). It runs in a process group of its own (the parent starts it so), so a
    // terminal's Ctrl-C is the parent's to handle, which ends the child by closing the socket;
    // its signals are left at their defaults, so that a process the plugin starts can be ended.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    const char *parent = getenv("ECHOLAB_PLUGIN_PARENT");
    if (parent && atol(parent) != (long)getppid()) return 5;   // the parent died before the line above
    // EchoLab's own start-up ignores SIGPIPE; a process the plugin starts would inherit that.
    signal(SIGPIPE, SIG_DFL);
    // The protocol keeps its own descriptor (never one a plugin's own child inherits); stdout
    // goes to stderr (a pipe the parent reads and prints line by line, named), so a plugin that
    // prints cannot corrupt the replies, and stdin reads nothing.
    int channel = fcntl(0, F_DUPFD_CLOEXEC, 3);
    if (channel < 0) return 3;
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) { dup2(null, 0); close(null); }
    dup2(2, 1);
    char greeting[] = HOST_GREETING;
    if (reply_text(channel, greeting) != 0) return 4;

    void *library = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
    if (!library) return reply_line(channel, "error cannot load it: %s", dlerror(), 0, 0), 2;
    const echolab_canceller_api *(*entry)(void) = (const echolab_canceller_api *(*)(void))dlsym(library, "echolab_canceller_entry");
    if (!entry) return reply_line(channel, "error%s not a canceller plugin: it exports no echolab_canceller_entry", "", 0, 0), 2;
    const echolab_canceller_api *api = entry();
    if (!api) return reply_line(channel, "error%s echolab_canceller_entry returned NULL", "", 0, 0), 2;
    if (api->abi_version != ECHOLAB_CANCELLER_ABI_VERSION)
        return reply_line(channel, "error%s its ABI version is %ld; EchoLab speaks version %ld", "", api->abi_version, ECHOLAB_CANCELLER_ABI_VERSION), 2;
    if (!api->create || !api->render || !api->capture || !api->destroy) {
        // Named, so that its author knows which entry to fill in.
        char missing[64] = "";
        const char *names[] = {"create", "render", "capture", "destroy"};
        const int present[] = {api->create != NULL, api->render != NULL, api->capture != NULL, api->destroy != NULL};
        for (int i = 0; i < 4; i++) {
            if (present[i]) continue;
            if (missing[0]) strcat(missing, ", ");
            strcat(missing, names[i]);
        }
        return reply_line(channel, "error its function table has no %s (create, render, capture and destroy are required)", missing, 0, 0), 2;
    }
    // The reports say what ran by this name: a plugin without one is a plugin half-written.
    if (!api->name || !api->name[strspn(api->name, " \t\r\n")])   /* blanks alone become nothing in the reply */
        return reply_line(channel, "error%s its name is NULL or empty (the reports name a plugin by it)", "", 0, 0), 2;
    char reason[256] = "";
    echolab_canceller *canceller = api->create(sample_rate, intensity, options, reason, sizeof reason);
    reason[sizeof reason - 1] = 0;
    if (!canceller) return reply_line(channel, "error create failed: %s", reason[0] ? reason : "no reason given", 0, 0), 2;
    long latency = api->latency_samples ? api->latency_samples(canceller) : 0;
    if (latency < 0 || latency > sample_rate)
        return reply_line(channel, "error%s latency_samples returned %ld (it must be 0 to %ld: at most a second)", "", latency, sample_rate), 2;
    // The name is cut to 200 bytes: the parent reads one line of at most 767.
    unsigned major, minor;
    unsigned long inode;
    loaded_file(library, &major, &minor, &inode);
    char line[768];
    snprintf(line, sizeof line, "ok %ld %u:%u:%lu %.200s", latency, major, minor, inode, api->name);
    if (reply_text(channel, line) != 0) return 4;

    size_t frame = (size_t)sample_rate / 100;
    float *input = calloc(frame, sizeof(float)), *output = calloc(frame, sizeof(float));
    int status = input && output ? 0 : 4;
    while (status == 0) {
        int32_t kind;
        int got = read_all(channel, &kind, sizeof kind);
        if (got == 0) break;   // the parent is done
        if (got < 0 || read_all(channel, input, frame * sizeof(float)) != 1) { status = 4; break; }
        int32_t header[2] = {status_ok, 0};
        if (kind == kind_render) {
            header[1] = api->render(canceller, input);
            if (header[1] == 0) continue;
            header[0] = status_render_failed;
            memset(output, 0, frame * sizeof(float));
        } else if (kind == kind_capture) {
            header[1] = api->capture(canceller, input, output);
            if (header[1] != 0) header[0] = status_capture_failed;
        } else {
            status = 4;
            break;
        }
        if (reply_all(channel, header, sizeof header) != 0 || reply_all(channel, output, frame * sizeof(float)) != 0) status = 4;
        else if (header[0] != status_ok) status = 1;
    }
    api->destroy(canceller);
    free(input);
    free(output);
    return status;
}

/* ---- the parent ---- */

// What the child writes to stdout and stderr, read from a pipe and printed on the parent's stderr
// a whole line at a time, each after `prefix`: runs in parallel print whole lines, named, and a
// process the plugin leaves behind holds this pipe, not the stderr a caller may be waiting on
// (`echolab … 2>&1 | tee` waited for such a process for as long as it lived).
struct relay {
    int fd;             // the pipe's read end, non-blocking; -1 once closed
    char prefix[280];
    char line[3800];    // with the prefix and the line break, within PIPE_BUF (4096): one write
    size_t length;
    size_t printed;     // bytes printed so far, prefixes and line breaks included
    int cut;            // past RELAY_LIMIT: the rest is read and dropped
};

// What one run of a plugin may print on the caller's stderr: a plugin that prints in a loop
// filled 560 MB of a CI log in the 2 s before its hang was stopped. The rest is drained (the
// plugin never blocks on a full pipe) and dropped, with one line saying so.
#define RELAY_LIMIT ((size_t)1 << 20)

static int write_all(int fd, const void *data, size_t size) {
    const char *bytes = data;
    while (size > 0) {
        ssize_t done = write(fd, bytes, size);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return -1;
        bytes += done;
        size -= (size_t)done;
    }
    return 0;
}

static void relay_emit(struct relay *relay) {
    char out[sizeof relay->prefix + sizeof relay->line + 1];
    size_t prefix = strlen(relay->prefix);
    if (relay->cut || relay->printed + prefix + relay->length + 1 > RELAY_LIMIT) {
        if (!relay->cut) {
            int n = snprintf(out, sizeof out, "%s(more than %zu KiB of the plugin's output relayed in this run: the rest is not shown)\n",
                             relay->prefix, RELAY_LIMIT >> 10);
            if (n > 0) write_all(2, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1);
            relay->cut = 1;
        }
        relay->length = 0;
        return;
    }
    relay->printed += prefix + relay->length + 1;
    memcpy(out, relay->prefix, prefix);
    memcpy(out + prefix, relay->line, relay->length);
    out[prefix + relay->length] = '\n';
    // One write per line: lines of parallel runs do not interleave (a pipe takes up to 4 KiB whole).
    write_all(2, out, prefix + relay->length + 1);
    relay->length = 0;
}

// Prints what the child has written so far, up to 64 KiB a call: a plugin printing faster than
// this process's stderr takes it never leaves the pipe empty, and the callers' deadlines and
// `stop_waiting` must still be looked at. A line longer than the buffer is cut into lines.
static void relay_drain(struct relay *relay) {
    char buffer[4096];
    for (int reads = 0; relay->fd >= 0 && reads < 16; reads++) {
        ssize_t got = read(relay->fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) { close(relay->fd); relay->fd = -1; }
            break;
        }
        for (ssize_t i = 0; i < got; i++) {
            if (buffer[i] == '\n') { relay_emit(relay); continue; }
            relay->line[relay->length++] = buffer[i];
            if (relay->length == sizeof relay->line) relay_emit(relay);
        }
    }
}

// The end of a run: what is left in the pipe, a last line without its line break, and the pipe
// closed (a process the plugin left behind that writes on gets EPIPE).
static void relay_close(struct relay *relay) {
    relay_drain(relay);
    if (relay->length > 0) relay_emit(relay);
    if (relay->fd >= 0) close(relay->fd);
    relay->fd = -1;
}

struct echolab_plugin_client {
    pid_t pid;
    int fd;
    struct relay relay;
    unsigned device_major, device_minor;
    unsigned long inode;
    size_t frame;
    int frame_timeout_ms;
    int latency;
    long frames;      // captures answered
    float *scratch;   // where a failed render's reply is read
    char name[256];
};

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

// Set from a signal handler (`echolab_plugin_client_stop_waiting`): every wait for a plugin
// ends within a slice, so an interrupted run stops now, not when a hung plugin's time is up.
// A lock-free atomic (signal-safe), released by the handler and acquired by the runs' threads:
// what the handler stored before it (the runs' cancellation) is seen with it.
static atomic_int stop_waiting = 0;

void echolab_plugin_client_stop_waiting(void) { atomic_store_explicit(&stop_waiting, 1, memory_order_release); }
int echolab_plugin_client_stopped(void) { return atomic_load_explicit(&stop_waiting, memory_order_acquire); }

// 0 once the descriptor is ready, -2 at the deadline, -4 when told to stop waiting, -1 on error.
// Prints the child's lines meanwhile: a child blocked on a full pipe would never answer.
static int wait_ready(int fd, short events, long long deadline, struct relay *relay) {
    for (;;) {
        if (atomic_load_explicit(&stop_waiting, memory_order_acquire)) return -4;
        long long left = deadline - now_ms();
        if (left <= 0) return -2;
        struct pollfd p[2] = {{fd, events, 0}, {relay->fd, POLLIN, 0}};
        // In slices of 50 ms, for `stop_waiting`'s sake (a signal may land outside the poll).
        int ready = poll(p, relay->fd >= 0 ? 2 : 1, (int)(left > 50 ? 50 : left));
        if (ready < 0 && errno != EINTR) return -1;
        if (ready > 0 && p[1].revents) relay_drain(relay);
        if (ready > 0 && p[0].revents) return 0;
    }
}

// 0; -1 error (the child is gone); -2 timeout; -4 told to stop waiting.
static int send_all(int fd, const void *data, size_t size, int timeout_ms, struct relay *relay) {
    const char *bytes = data;
    long long deadline = now_ms() + timeout_ms;
    while (size > 0) {
        int ready = wait_ready(fd, POLLOUT, deadline, relay);
        if (ready != 0) return ready;
        ssize_t done = send(fd, bytes, size, MSG_NOSIGNAL);
        if (done < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (done <= 0) return -1;
        bytes += done;
        size -= (size_t)done;
    }
    return 0;
}

// 0; -1 error; -2 past `deadline`; -3 the child closed the socket; -4 told to stop waiting.
static int receive_until(int fd, void *data, size_t size, long long deadline, struct relay *relay) {
    char *bytes = data;
    while (size > 0) {
        int ready = wait_ready(fd, POLLIN, deadline, relay);
        if (ready != 0) return ready;
        ssize_t done = recv(fd, bytes, size, 0);
        if (done < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (done < 0) return errno == ECONNRESET ? -3 : -1;
        if (done == 0) return -3;
        bytes += done;
        size -= (size_t)done;
    }
    return 0;
}

// Reaps the child: waits up to `grace_ms` for it to end, printing its lines meanwhile, then
// kills it (and sets `*killed`, when given); then whatever is left of its process group (what
// the plugin started and left running), and the pipe is drained and closed. Its wait status.
static int reap(pid_t pid, int grace_ms, int *killed, struct relay *relay) {
    long long deadline = now_ms() + grace_ms;
    int ended = 0;
    for (;;) {
        // Ended, but not reaped (WNOWAIT): until it is, its id stays its group's, which the
        // kill below must reach and no other.
        siginfo_t info = {0};
        int waited = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT);
        if ((waited == 0 && info.si_pid == pid) || (waited < 0 && errno != EINTR)) { ended = 1; break; }
        if (now_ms() >= deadline) break;
        relay_drain(relay);
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
    if (!ended) {
        if (killed) *killed = 1;
        kill(pid, SIGKILL);
    }
    kill(-pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    relay_close(relay);
    return status;
}

// One line from fd (without its newline, at most size - 1 bytes) by `deadline`: receive_until's
// results.
static int receive_line(int fd, char *line, size_t size, long long deadline, struct relay *relay) {
    size_t length = 0;
    int result = 0;
    while (length < size - 1) {
        result = receive_until(fd, line + length, 1, deadline, relay);
        if (result != 0 || line[length] == '\n') break;
        length++;
    }
    line[length] = 0;
    return result;
}

// Why the child ended without a reply.
static void describe_end(pid_t pid, const char *when, char *error, size_t error_size, struct relay *relay) {
    int status = reap(pid, 1000, NULL, relay);
    if (WIFSIGNALED(status))
        snprintf(error, error_size, "crashed %s (signal %d, %s)", when, WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(error, error_size, "exited %s (status %d) without answering", when, WEXITSTATUS(status));
    else
        snprintf(error, error_size, "ended %s without answering", when);
}

echolab_plugin_client *echolab_plugin_client_start(const char *executable, const char *plugin_path, int sample_rate,
                                                   const char *intensity, const char *options, const char *label,
                                                   int create_timeout_ms, int frame_timeout_ms,
                                                   char *error, size_t error_size) {
    int fds[2], output[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        snprintf(error, error_size, "cannot make a socket for it: %s", strerror(errno));
        return NULL;
    }
    if (pipe2(output, O_CLOEXEC) != 0) {
        snprintf(error, error_size, "cannot make a pipe for its output: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    struct relay relay = {output[0], "", "", 0, 0, 0};
    snprintf(relay.prefix, sizeof relay.prefix, "[%.260s] ", label);
    fcntl(output[0], F_SETFL, fcntl(output[0], F_GETFL) | O_NONBLOCK);
    char rate[16];
    snprintf(rate, sizeof rate, "%d", sample_rate);
    char *argv[] = {(char *)executable, "plugin-host", (char *)plugin_path, rate, (char *)intensity, (char *)options, NULL};
    // The socket as its stdin, the pipe as its stderr, and nothing else of this process's: a
    // file the parent has open (an input WAV) is not the plugin's to hold.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 0);
    posix_spawn_file_actions_adddup2(&actions, output[1], 2);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    // A process group of its own (a terminal's Ctrl-C is the parent's; what the plugin starts
    // can be ended with it), signals at their defaults (the parent may ignore some: inherited,
    // a process the plugin started could not be stopped) and none blocked.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults, none;
    sigemptyset(&defaults);
    int reset[] = {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1, SIGUSR2, SIGCHLD};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++) sigaddset(&defaults, reset[i]);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    // The host is a Swift program: without this, the Swift runtime's crash handler would catch
    // a plugin's fault, print a backtrace and, for a raised signal, even carry on.
    size_t count = 0;
    while (environ[count]) count++;
    char **environment = calloc(count + 3, sizeof(char *));
    if (!environment) {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
        close(fds[0]);
        close(fds[1]);
        close(output[0]);
        close(output[1]);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    size_t kept = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], "SWIFT_BACKTRACE=", 16) != 0 && strncmp(environ[i], "ECHOLAB_PLUGIN_PARENT=", 22) != 0)
            environment[kept++] = environ[i];
    environment[kept++] = "SWIFT_BACKTRACE=enable=no";
    char parent[48];
    snprintf(parent, sizeof parent, "ECHOLAB_PLUGIN_PARENT=%ld", (long)getpid());
    environment[kept++] = parent;
    environment[kept] = NULL;
    pid_t pid;
    int spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environment);
    free(environment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(fds[1]);
    close(output[1]);
    if (spawned != 0) {
        close(fds[0]);
        close(output[0]);
        snprintf(error, error_size, "cannot start %s to host it: %s", executable, strerror(spawned));
        return NULL;
    }
    char line[768];
    long long deadline = now_ms() + create_timeout_ms;
    // The host greets before it loads the plugin (HOST_GREETING): what goes wrong before that is the host's.
    int result = receive_line(fds[0], line, sizeof line, deadline, &relay);
    if (result != 0 || strcmp(line, HOST_GREETING) != 0) {
        close(fds[0]);
        char what[200];
        if (result == 0) {
            reap(pid, 0, NULL, &relay);
            snprintf(what, sizeof what, "answered '%.60s'", line);
        } else if (result == -4 || result == -2) {
            reap(pid, 0, NULL, &relay);
            if (result == -4) snprintf(error, error_size, "interrupted while it started");
            // A host that is EchoLab's greets at once; one this slow may be a loaded machine's.
            else snprintf(error, error_size, "its host %.200s did not greet within %d ms (is it this echolab binary?): stopped",
                          executable, create_timeout_ms);
            return NULL;
        } else {
            describe_end(pid, "at start", what, sizeof what, &relay);
        }
        snprintf(error, error_size, "its host %.200s is not EchoLab's plugin host of this version: it %s (set ECHOLAB_PLUGIN_HOST to this echolab binary)",
                 executable, what);
        return NULL;
    }
    result = receive_line(fds[0], line, sizeof line, deadline, &relay);
    if (result == -2 || result == -4) {
        close(fds[0]);
        reap(pid, 0, NULL, &relay);
        if (result == -4) snprintf(error, error_size, "interrupted while it started");
        else snprintf(error, error_size, "did not start within %d ms (its create hung?): stopped", create_timeout_ms);
        return NULL;
    }
    if (result != 0) {
        close(fds[0]);
        // The child answers once the plugin is loaded and created: it died in one or the other.
        describe_end(pid, "while loading or creating", error, error_size, &relay);
        return NULL;
    }
    if (strncmp(line, "error", 5) == 0) {
        close(fds[0]);
        reap(pid, 1000, NULL, &relay);
        snprintf(error, error_size, "%s", line[5] == ' ' ? line + 6 : line + 5);
        return NULL;
    }
    int latency = 0, offset = 0;
    unsigned major = 0, minor = 0;
    unsigned long inode = 0;
    if (sscanf(line, "ok %d %u:%u:%lu %n", &latency, &major, &minor, &inode, &offset) < 4 || offset == 0) {
        close(fds[0]);
        reap(pid, 0, NULL, &relay);
        snprintf(error, error_size, "answered something that is not EchoLab's protocol: '%.60s'", line);
        return NULL;
    }
    echolab_plugin_client *client = calloc(1, sizeof *client);
    if (!client) {
        close(fds[0]);
        reap(pid, 0, NULL, &relay);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    client->scratch = calloc((size_t)sample_rate / 100, sizeof(float));
    if (!client->scratch) {
        free(client);
        close(fds[0]);
        reap(pid, 0, NULL, &relay);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    client->pid = pid;
    client->fd = fds[0];
    client->relay = relay;
    client->frame = (size_t)sample_rate / 100;
    client->frame_timeout_ms = frame_timeout_ms;
    client->latency = latency;
    client->device_major = major;
    client->device_minor = minor;
    client->inode = inode;
    snprintf(client->name, sizeof client->name, "%s", line + offset);
    return client;
}

const char *echolab_plugin_client_name(const echolab_plugin_client *client) { return client->name; }
int echolab_plugin_client_latency(const echolab_plugin_client *client) { return client->latency; }
void echolab_plugin_client_loaded_file(const echolab_plugin_client *client, unsigned *device_major, unsigned *device_minor,
                                       unsigned long *inode) {
    *device_major = client->device_major;
    *device_minor = client->device_minor;
    *inode = client->inode;
}

// The reply to a capture, or the reason there is none.
static int receive_reply(echolab_plugin_client *client, float *out, char *error, size_t error_size) {
    int32_t header[2];
    long long deadline = now_ms() + client->frame_timeout_ms;
    int result = receive_until(client->fd, header, sizeof header, deadline, &client->relay);
    if (result == 0) result = receive_until(client->fd, out, client->frame * sizeof(float), deadline, &client->relay);
    // A reply is ok with code 0, or a failure with the plugin's non-zero code: anything else is
    // not the host's (the plugin wrote into the socket).
    int garbled = result == 0 && !(header[0] == status_ok ? header[1] == 0
                                   : (header[0] == status_render_failed || header[0] == status_capture_failed) && header[1] != 0);
    if (result == 0 && !garbled && header[0] == status_ok) {
        client->frames++;
        return 0;
    }
    char when[64];
    snprintf(when, sizeof when, "at frame %ld", client->frames);
    if (result == -2 || result == -4) {
        reap(client->pid, 0, NULL, &client->relay);
        client->pid = 0;
        if (result == -4) snprintf(error, error_size, "interrupted %s", when);
        else snprintf(error, error_size, "sent no frame back within %d ms %s (hung?): stopped", client->frame_timeout_ms, when);
        return -1;
    }
    if (result != 0) {
        describe_end(client->pid, when, error, error_size, &client->relay);
        client->pid = 0;
        return -1;
    }
    reap(client->pid, garbled ? 0 : 1000, NULL, &client->relay);
    client->pid = 0;
    if (garbled)
        snprintf(error, error_size, "sent a reply that is not EchoLab's protocol %s (did it write into the frame socket?)", when);
    else
        snprintf(error, error_size, "%s returned %d %s", header[0] == status_render_failed ? "render" : "capture", header[1], when);
    return -1;
}

static int send_frame(echolab_plugin_client *client, int32_t kind, const float *frame, float *out, char *error, size_t error_size) {
    int result = send_all(client->fd, &kind, sizeof kind, client->frame_timeout_ms, &client->relay);
    if (result == 0) result = send_all(client->fd, frame, client->frame * sizeof(float), client->frame_timeout_ms, &client->relay);
    if (result == 0) return 0;
    if (result == -2 || result == -4) {
        reap(client->pid, 0, NULL, &client->relay);
        client->pid = 0;
        if (result == -4) snprintf(error, error_size, "interrupted at frame %ld", client->frames);
        else snprintf(error, error_size, "took no frame within %d ms at frame %ld (hung?): stopped", client->frame_timeout_ms, client->frames);
        return -1;
    }
    // The child is gone; a failed render left its reply behind it.
    if (receive_reply(client, out ? out : client->scratch, error, error_size) == 0)
        snprintf(error, error_size, "closed its socket at frame %ld", client->frames);
    return -1;
}

int echolab_plugin_client_render(echolab_plugin_client *client, const float *far_end, char *error, size_t error_size) {
    if (client->pid == 0) { snprintf(error, error_size, "has already failed"); return -1; }
    return send_frame(client, kind_render, far_end, NULL, error, error_size);
}

int echolab_plugin_client_capture(echolab_plugin_client *client, const float *mic, float *out, char *error, size_t error_size) {
    if (client->pid == 0) { snprintf(error, error_size, "has already failed"); return -1; }
    if (send_frame(client, kind_capture, mic, out, error, error_size) != 0) return -1;
    return receive_reply(client, out, error, error_size);
}

int echolab_plugin_client_finish(echolab_plugin_client *client, char *error, size_t error_size) {
    if (client->pid == 0) { snprintf(error, error_size, "has already failed"); return -1; }
    // The end of the socket is the child's cue to call destroy and exit.
    close(client->fd);
    client->fd = -1;
    // As long as a frame may take: a destroy that joins threads or flushes files on a loaded
    // machine is not a hang.
    int killed = 0;
    int status = reap(client->pid, client->frame_timeout_ms, &killed, &client->relay);
    client->pid = 0;
    if (killed)
        snprintf(error, error_size, "did not exit within %d ms of its last frame (a destroy that hangs?), and was killed",
                 client->frame_timeout_ms);
    else if (WIFSIGNALED(status))
        snprintf(error, error_size, "crashed after its last frame, in destroy or as it exited (signal %d, %s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        snprintf(error, error_size, "exited with status %d after its last frame", WEXITSTATUS(status));
    else
        return 0;
    return -1;
}

void echolab_plugin_client_stop(echolab_plugin_client *client) {
    if (!client) return;
    if (client->fd >= 0) close(client->fd);
    if (client->pid != 0) reap(client->pid, 1000, NULL, &client->relay);
    relay_close(&client->relay);
    free(client->scratch);
    free(client);
}

int echolab_file_identity(int fd, unsigned *device_major, unsigned *device_minor, unsigned long *inode, long long *modified_ns) {
    struct stat status;
    if (fstat(fd, &status) != 0) return -1;
    *device_major = major(status.st_dev);
    *device_minor = minor(status.st_dev);
    *inode = (unsigned long)status.st_ino;
    *modified_ns = (long long)status.st_mtim.tv_sec * 1000000000LL + status.st_mtim.tv_nsec;
    return 0;
}
