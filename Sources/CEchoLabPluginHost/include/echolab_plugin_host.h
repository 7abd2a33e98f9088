#ifndef ECHOLAB_PLUGIN_HOST_H
#define ECHOLAB_PLUGIN_HOST_H

// Runs a canceller plugin (echolab_canceller.h) in a child process and talks to it over a Unix
// socket, so that a plugin that crashes, hangs or corrupts memory takes only its own run down.
// The child is EchoLab's own binary run as `echolab plugin-host …` (`echolab_plugin_host_run`);
// the parent drives it frame by frame (`echolab_plugin_client_*`). Messages, all native-endian:
//   parent → child: int32 kind (1 render, 2 capture), then one frame of float32;
//   child → parent, first, before it loads the plugin: the line "echolab-plugin-host 1" (a child
//     that does not send it is another program, or another version's host: it is named, not the plugin);
//   child → parent, once after loading: a text line, "ok LATENCY MAJOR:MINOR:INODE NAME" (the
//     device and inode of the file the plugin was loaded from, 0:0:0 where unknown) or "error REASON";
//   child → parent, per capture: int32 status (0 ok, 1 render failed, 2 capture failed),
//     int32 the plugin's return code, then one frame of float32 (the output).
// A failed call ends the child after its reply; the parent names the frame.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// The child: loads `plugin_path`, checks it, creates its canceller, answers on file descriptor
// 0 until it is closed. Its stdout goes to stderr, so a plugin's prints cannot corrupt the
// replies. Returns the process's exit status.
int echolab_plugin_host_run(const char *plugin_path, int sample_rate, const char *intensity, const char *options);

typedef struct echolab_plugin_client echolab_plugin_client;

// Starts `executable` with `plugin-host PATH RATE INTENSITY [OPTIONS]`, waits for its greeting and
// its loading line (`create_timeout_ms`); later frames must come back within `frame_timeout_ms`. NULL and a
// one-line reason in `error` (naming no plugin: the caller does) on failure. What the plugin
// prints goes to this process's stderr a whole line at a time, each line after `[label] `; as
// the run ends, whatever the plugin started and left in the child's process group is killed.
echolab_plugin_client *echolab_plugin_client_start(const char *executable, const char *plugin_path, int sample_rate,
                                                   const char *intensity, const char *options, const char *label,
                                                   int create_timeout_ms, int frame_timeout_ms,
                                                   char *error, size_t error_size);
// The plugin's `name` and `latency_samples`, as the child reported them.
const char *echolab_plugin_client_name(const echolab_plugin_client *client);
int echolab_plugin_client_latency(const echolab_plugin_client *client);
// The file the child loaded the plugin from: its device's major and minor numbers and its inode
// (all 0 where the child could not tell).
void echolab_plugin_client_loaded_file(const echolab_plugin_client *client, unsigned *device_major, unsigned *device_minor,
                                       unsigned long *inode);
// One frame of the far end as played. 0, or -1 and a reason in `error`.
int echolab_plugin_client_render(echolab_plugin_client *client, const float *far_end, char *error, size_t error_size);
// One microphone frame in, the plugin's output frame out. 0, or -1 and a reason in `error`.
int echolab_plugin_client_capture(echolab_plugin_client *client, const float *mic, float *out, char *error, size_t error_size);
// The end of a run: closes the socket, so that the child calls the plugin's destroy and exits,
// and reaps it. 0 where it exited cleanly within the frame timeout; -1 and a reason in `error` where it
// crashed, exited with a failure status, or hung and was killed (a plugin that corrupts its heap
// often fails only here). The client is stopped either way (`echolab_plugin_client_stop` still
// frees it).
int echolab_plugin_client_finish(echolab_plugin_client *client, char *error, size_t error_size);
// The file open at `fd`: its device's major and minor numbers, its inode, and when its contents
// were last written (ns; a rename or unlink leaves it). 0, or -1 where fstat fails.
int echolab_file_identity(int fd, unsigned *device_major, unsigned *device_minor, unsigned long *inode, long long *modified_ns);
// Closes the socket and reaps the child (killed if it does not exit within a second).
void echolab_plugin_client_stop(echolab_plugin_client *client);
// Ends every wait for a plugin, now and later (its child killed, the call failing with
// "interrupted"): for a signal handler (it only sets a flag), so that an interrupted run stops
// at once instead of when a hung plugin's time is up.
void echolab_plugin_client_stop_waiting(void);
// Whether `echolab_plugin_client_stop_waiting` was called: a failure after it is the stop's.
int echolab_plugin_client_stopped(void);

#ifdef __cplusplus
}
#endif

#endif
