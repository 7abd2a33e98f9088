/*
 * Plugins that the tests build (cc -shared -fPIC -D BEHAVIOUR=B_<name>) to check how EchoLab treats
 * foreign code: each misbehaves once, at frame 30 of its captures, or is no plugin at all.
 *   passthrough  the mic unchanged (ERLE ≈ 0 dB)      mute         zeros
 *   crash        a segmentation fault                 hang         never returns
 *   error        capture returns 7                    render_error render returns 5
 *   nan          writes NaN                           create_fails create returns NULL, a reason
 *   no_entry     exports no echolab_canceller_entry   abi2         says ABI version 2
 *   chatty       prints to stdout every frame, otherwise a pass-through
 *   bad_latency  says its output lags by -5 samples
 *   no_name      gives no name (NULL)
 *   no_functions its table has no render and no destroy (NULL)
 *   create_crash a segmentation fault in create
 *   replaces_itself  a pass-through whose second create renames SWAP_FROM over SWAP_TO (its own
 *                file): the plugin rebuilt while an eval runs, as its first run starts (the first
 *                create is the latency check's, which it marks in SWAP_TO.probed)
 *   rewritten_crash  appends to SWAP_TO (its own file) at frame 30 and crashes: a plugin rebuilt in
 *                place while it runs, its code changed under it
 *   destroy_crash, destroy_exit, destroy_hang  a pass-through whose destroy, after 30 frames or
 *                more, crashes, exits with status 9, or never returns: every frame answered, the
 *                plugin fails only at the end (the latency check's instance, fewer frames, lets go)
 *   early_crash  a segmentation fault at frame 7: in the latency check's instance
 *   scribbles    writes text into every descriptor from 3 up at frame 30 (the frame socket among them)
 *   floods       prints without end at frame 30, never returning (a hang that keeps talking)
 *   forks        a pass-through whose create starts a process that prints its pid and then
 *                waits for ever (a helper daemon the plugin never stops)
 *   drops        a pass-through that sends exact zeros for frames 100-114 (150 ms from 1 s): a
 *                canceller suppressing to digital silence
 *   late         sends each mic frame one frame late, and says nothing of it (latency_samples NULL)
 *   late_said    the same, and says so: latency_samples is one frame
 *   late_inverted  late, its output upside down (-1 times the mic frame before)
 *   claims       a pass-through whose latency_samples says one frame
 *   counts       a pass-through whose create appends a line to COUNT_TO
 *   shifted      sends the mic SHIFT samples late (at its own rate; under a frame) and says SAID:
 *                a latency_samples off by a few samples
 *   late_mute    a pass-through for its first 50 frames (0.5 s), zeros after: a mute that lets the
 *                first far-end single talk through
 *   faint_mute   sends seeded noise at -100 dBFS instead of the mic: a mute that sends a faint
 *                floor rather than digital silence
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "echolab_canceller.h"

#define B_passthrough 1
#define B_mute 2
#define B_crash 3
#define B_hang 4
#define B_error 5
#define B_render_error 6
#define B_nan 7
#define B_create_fails 8
#define B_no_entry 9
#define B_abi2 10
#define B_chatty 11
#define B_no_name 13
#define B_bad_latency 12
#define B_huge 14
#define B_replaces_itself 15
#define B_create_crash 16
#define B_destroy_crash 17
#define B_destroy_exit 18
#define B_destroy_hang 19
#define B_forks 20
#define B_scribbles 21
#define B_floods 22
#define B_rewritten_crash 23
#define B_no_functions 24
#define B_drops 25
#define B_late 26
#define B_late_said 27
#define B_claims 28
#define B_counts 29
#define B_early_crash 30
#define B_late_inverted 31
#define B_shifted 32
#define B_late_mute 33
#define B_faint_mute 34

struct echolab_canceller {
    int frame;
    long captures;
    float held[480];   /* late, late_said: the mic frame before (a frame is 480 samples at most) */
    int filled;        /* shifted: how much of held is waiting */
    unsigned noise;    /* faint_mute: a linear congruential generator's state, each instance its own */
};

static echolab_canceller *create(int sample_rate, const char *intensity, const char *options, char *reason, size_t size) {
    (void)intensity; (void)options;
#if BEHAVIOUR == B_create_fails
    snprintf(reason, size, "no licence\nfor this  room\n");   /* one line in the error: "no licence for this room" */
    return NULL;
#else
    (void)reason; (void)size;
#if BEHAVIOUR == B_create_crash
    *(volatile int *)(sample_rate - sample_rate) = 1;   /* a write through NULL */
#endif
#if BEHAVIOUR == B_replaces_itself
    if (access(SWAP_TO ".probed", F_OK) == 0) {
        rename(SWAP_FROM, SWAP_TO);   /* once: from the third create on, SWAP_FROM is gone */
    } else {
        FILE *mark = fopen(SWAP_TO ".probed", "w");
        if (mark) fclose(mark);
    }
#endif
#if BEHAVIOUR == B_counts
    FILE *count = fopen(COUNT_TO, "a");   /* a line per create */
    if (count) { fputs("create\n", count); fclose(count); }
#endif
#if BEHAVIOUR == B_forks
    if (fork() == 0) {
        printf("helper %ld\n", (long)getpid());
        fflush(stdout);
        for (;;) pause();
    }
#endif
    echolab_canceller *c = calloc(1, sizeof *c);
    c->frame = sample_rate / 100;
    c->noise = 12345u;   /* the same floor every run, and from every instance */
    return c;
#endif
}

static int render(echolab_canceller *c, const float *far_end) {
    (void)far_end;
#if BEHAVIOUR == B_render_error
    if (c->captures == 30) return 5;
#else
    (void)c;
#endif
    return 0;
}

static int capture(echolab_canceller *c, const float *mic, float *out) {
    long at = c->captures++;
    (void)at;
    for (int i = 0; i < c->frame; i++) out[i] = mic[i];
#if BEHAVIOUR == B_mute
    memset(out, 0, (size_t)c->frame * sizeof(float));
#elif BEHAVIOUR == B_late || BEHAVIOUR == B_late_said
    memcpy(out, c->held, (size_t)c->frame * sizeof(float));
    memcpy(c->held, mic, (size_t)c->frame * sizeof(float));
#elif BEHAVIOUR == B_shifted
    for (int i = 0; i < c->frame; i++) {   /* held is a SHIFT-sample delay line, zeros at first */
        out[i] = c->held[c->filled];
        c->held[c->filled] = mic[i];
        c->filled = (c->filled + 1) % SHIFT;
    }
#elif BEHAVIOUR == B_late_inverted
    for (int i = 0; i < c->frame; i++) out[i] = -c->held[i];
    memcpy(c->held, mic, (size_t)c->frame * sizeof(float));
#elif BEHAVIOUR == B_late_mute
    if (at >= 50) memset(out, 0, (size_t)c->frame * sizeof(float));
#elif BEHAVIOUR == B_faint_mute
    for (int i = 0; i < c->frame; i++) {
        c->noise = c->noise * 1103515245u + 12345u;
        out[i] = 1e-5f * ((float)(c->noise >> 8) / 16777216.0f - 0.5f) * 3.4641f;   /* uniform, RMS 1e-5: -100 dBFS */
    }
#elif BEHAVIOUR == B_drops
    if (at >= 100 && at < 115) memset(out, 0, (size_t)c->frame * sizeof(float));   /* 150 ms of exact zeros from 1 s */
#elif BEHAVIOUR == B_crash
    if (at == 30) *(volatile int *)(c->frame - c->frame) = 1;   /* a write through NULL */
#elif BEHAVIOUR == B_early_crash
    if (at == 7) *(volatile int *)(c->frame - c->frame) = 1;
#elif BEHAVIOUR == B_rewritten_crash
    if (at == 30) {
        FILE *own = fopen(SWAP_TO, "ab");
        if (own) { fputc(0, own); fclose(own); }
        *(volatile int *)(c->frame - c->frame) = 1;
    }
#elif BEHAVIOUR == B_hang
    if (at == 30) for (;;) pause();
#elif BEHAVIOUR == B_error
    if (at == 30) return 7;
#elif BEHAVIOUR == B_nan
    if (at == 30) out[3] = NAN;
#elif BEHAVIOUR == B_huge
    if (at == 30) out[3] = 1e19f;   /* finite, but no audio: past +120 dBFS the metrics' sums overflow */
#elif BEHAVIOUR == B_floods
    if (at == 30) for (;;) fputs("flooding the pipe with one line after another, as fast as stderr takes them\n", stderr);
#elif BEHAVIOUR == B_scribbles
    if (at == 30) for (int fd = 3; fd < 64; fd++) (void)!write(fd, "garbage!", 8);
#elif BEHAVIOUR == B_chatty
    printf("frame %ld\n", at);
    fflush(stdout);
#endif
    return 0;
}

static void destroy(echolab_canceller *c) {
#if BEHAVIOUR == B_destroy_crash
    if (c->captures >= 30) *(volatile int *)(c->frame - c->frame) = 1;   /* a write through NULL */
#elif BEHAVIOUR == B_destroy_exit
    if (c->captures >= 30) _exit(9);
#elif BEHAVIOUR == B_destroy_hang
    if (c->captures >= 30) for (;;) pause();
#endif
    free(c);
}

#if BEHAVIOUR == B_bad_latency
static int latency(const echolab_canceller *c) { (void)c; return -5; }
#elif BEHAVIOUR == B_late_said || BEHAVIOUR == B_claims
static int latency(const echolab_canceller *c) { return c->frame; }
#elif BEHAVIOUR == B_shifted
static int latency(const echolab_canceller *c) { (void)c; return SAID; }
#else
#define latency NULL
#endif

static const echolab_canceller_api api = {
#if BEHAVIOUR == B_abi2
    2,
#else
    ECHOLAB_CANCELLER_ABI_VERSION,
#endif
#if BEHAVIOUR == B_no_name
    NULL,
#else
    "misbehaving",
#endif
#if BEHAVIOUR == B_no_functions
    create, NULL, capture, latency, NULL,
#else
    create, render, capture, latency, destroy,
#endif
};

#if BEHAVIOUR != B_no_entry
const echolab_canceller_api *echolab_canceller_entry(void) { return &api; }
#else
const echolab_canceller_api *some_other_symbol(void) { return &api; }
#endif
