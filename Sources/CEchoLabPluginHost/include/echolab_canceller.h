/*
 * echolab_canceller.h: the C interface of an EchoLab canceller plugin, ABI version 1.
 *
 * A plugin is a shared library that exports one symbol, `echolab_canceller_entry`, returning a
 * table of functions. EchoLab runs it in a child process of its own (one per run): a plugin that
 * crashes, hangs, fails or writes NaN, Inf or a sample of ±2^20 (+120 dBFS) or more fails only its
 * own runs. Build one with
 *     cc -shared -fPIC -O2 -I<echolab>/Sources/CEchoLabPluginHost/include my_aec.c -o my_aec.so
 * and run it with `echolab eval CORPUS --plugin mine=./my_aec.so --modes mine:intensityRecommended`.
 * docs/plugins.md describes the contract; Examples/Plugins/nlms.c is a complete plugin.
 */
#ifndef ECHOLAB_CANCELLER_H
#define ECHOLAB_CANCELLER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ECHOLAB_CANCELLER_ABI_VERSION 1

typedef struct echolab_canceller echolab_canceller;   /* the plugin's own state */

/* create, render, capture and destroy are required (not NULL). The buffers a call is given
   (far_end, mic, out) are EchoLab's and valid only during that call: copy what you keep. EchoLab
   reuses them, and the far_end of one render may be the memory of the next capture's mic. */
typedef struct {
    int abi_version;            /* ECHOLAB_CANCELLER_ABI_VERSION */
    const char *name;           /* shown in reports; required, not empty */
    /* sample_rate: 8000, 16000, 32000 or 48000; a frame is 10 ms (sample_rate / 100 samples),
       mono Float32. intensity: "intensityMin", "intensityRecommended", "intensityMax" or
       "intensityAdaptive". options: the text of a JSON object, or NULL.
       On failure: return NULL and write a one-line reason into error. */
    echolab_canceller *(*create)(int sample_rate, const char *intensity, const char *options,
                                 char *error, size_t error_size);
    int  (*render)(echolab_canceller *, const float *far_end);          /* 0 = ok */
    int  (*capture)(echolab_canceller *, const float *mic, float *out); /* 0 = ok */
    /* latency_samples: how many samples out lags mic, at sample_rate, 0 to sample_rate (a
       second); asked once, after create. EchoLab checks it before a plugin's first run (a noise
       burst through a fresh instance, nothing played) and fails the runs of a plugin whose
       output belies it: by any whole sample at the call's rate, or, resampled around it, by more
       than half a sample of its own rate (docs/plugins.md). */
    int  (*latency_samples)(const echolab_canceller *);                 /* NULL means 0 */
    void (*destroy)(echolab_canceller *);
} echolab_canceller_api;

const echolab_canceller_api *echolab_canceller_entry(void);  /* the one exported symbol */

#ifdef __cplusplus
}
#endif

#endif
