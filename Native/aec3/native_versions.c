// The native libraries' versions as `make deps` found them (scripts/build-aec3.sh passes them in).
#include "echolab_aec3.h"

static const EchoLabNativeVersions versions = {
    ECHOLAB_SPEEXDSP_VERSION, ECHOLAB_WEBRTC_AUDIO_PROCESSING_VERSION, ECHOLAB_TG_OWT_VERSION,
};

const EchoLabNativeVersions *echolab_native_versions(void) { return &versions; }
