/*
 * An example EchoLab canceller plugin: a time-domain normalised-LMS adaptive filter with a Geigel
 * double-talk detector, in plain C against echolab_canceller.h (ABI version 1).
 *
 *   cc -shared -fPIC -O2 -I Sources/CEchoLabPluginHost/include Examples/Plugins/nlms.c -o nlms.so -lm
 *   echolab eval vectors/scenarios --plugin nlms=./nlms.so --plugin-rate nlms=16000 \
 *       --modes speex:intensityRecommended,nlms:intensityRecommended --out /tmp/nlms
 *
 * (`make plugins` builds it into .build/example-plugins/nlms.so.) Options, a JSON object: "filter_ms"
 * (the echo tail it models, default 64). The intensities set its step size: a larger step adapts
 * faster and tracks a changing room, a smaller one leaves less misadjustment noise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "echolab_canceller.h"

struct echolab_canceller {
    int frame;          /* samples per 10 ms */
    int taps;           /* filter length */
    float step;         /* NLMS step size, 0 < step < 2 */
    float *weights;     /* taps */
    float *far;         /* taps - 1 + frame: the far end, oldest first; the last frame is this tick's */
    double far_energy;  /* sum of squares of the newest `taps` far-end samples */
    int hold;           /* samples left in which adaptation stays frozen after double talk */
};

/* The number after "key": in a JSON object's text, or `fallback`. Enough for an example. */
static double option(const char *options, const char *key, double fallback) {
    if (!options) return fallback;
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    const char *at = strstr(options, quoted);
    if (!at) return fallback;
    at = strchr(at + strlen(quoted), ':');
    double value;
    return at && sscanf(at + 1, " %lf", &value) == 1 ? value : fallback;
}

static echolab_canceller *create(int sample_rate, const char *intensity, const char *options, char *error, size_t error_size) {
    double filter_ms = option(options, "filter_ms", 64);
    if (filter_ms < 1 || filter_ms > 500) {
        snprintf(error, error_size, "filter_ms must be 1 to 500 (got %g)", filter_ms);
        return NULL;
    }
    float step = 0.5f;
    if (strcmp(intensity, "intensityMin") == 0) step = 0.25f;
    else if (strcmp(intensity, "intensityMax") == 0) step = 0.8f;
    echolab_canceller *c = calloc(1, sizeof *c);
    if (!c) { snprintf(error, error_size, "out of memory"); return NULL; }
    c->frame = sample_rate / 100;
    c->taps = (int)(filter_ms * sample_rate / 1000);
    c->step = step;
    c->weights = calloc((size_t)c->taps, sizeof(float));
    c->far = calloc((size_t)(c->taps - 1 + c->frame), sizeof(float));
    if (!c->weights || !c->far) {
        snprintf(error, error_size, "out of memory for %d taps", c->taps);
        free(c->weights); free(c->far); free(c);
        return NULL;
    }
    return c;
}

static int render(echolab_canceller *c, const float *far_end) {
    /* Keep the newest taps - 1 samples of history, then this frame. */
    memmove(c->far, c->far + c->frame, (size_t)(c->taps - 1) * sizeof(float));
    memcpy(c->far + c->taps - 1, far_end, (size_t)c->frame * sizeof(float));
    return 0;
}

static int capture(echolab_canceller *c, const float *mic, float *out) {
    const int taps = c->taps;
    for (int i = 0; i < c->frame; i++) {
        /* x[k] = far end k samples before this one: far[taps - 1 + i - k]. */
        const float *newest = c->far + taps - 1 + i;
        if (i == 0) {   /* summed afresh each frame, so rounding never accumulates */
            c->far_energy = 0;
            for (int k = 0; k < taps; k++) c->far_energy += (double)newest[-k] * newest[-k];
        } else {        /* the window moved by one: newest[0] entered, newest[-taps] left */
            c->far_energy += (double)newest[0] * newest[0] - (double)newest[-taps] * newest[-taps];
        }
        float estimate = 0, peak = 0;
        for (int k = 0; k < taps; k++) {
            estimate += c->weights[k] * newest[-k];
            float magnitude = fabsf(newest[-k]);
            if (magnitude > peak) peak = magnitude;
        }
        float residual = mic[i] - estimate;
        /* Geigel: a mic louder than half the far end's recent peak is the near talker. */
        if (fabsf(mic[i]) > 0.5f * peak) c->hold = c->frame * 3;
        if (c->hold > 0) {
            c->hold--;
        } else if (c->far_energy > 1e-6) {
            float gain = c->step * residual / (float)(c->far_energy + 1e-6);
            for (int k = 0; k < taps; k++) c->weights[k] += gain * newest[-k];
        }
        out[i] = residual;
    }
    return 0;
}

static void destroy(echolab_canceller *c) {
    free(c->weights);
    free(c->far);
    free(c);
}

static const echolab_canceller_api api = {
    ECHOLAB_CANCELLER_ABI_VERSION, "nlms (EchoLab example)", create, render, capture, NULL, destroy,
};

const echolab_canceller_api *echolab_canceller_entry(void) { return &api; }
