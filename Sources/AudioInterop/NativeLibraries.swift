internal import CEchoLabAEC3

/// The native libraries this build links and their versions, as `make deps` found them (pkg-config,
/// dpkg): reports name each backend's library, so a baseline says what it measured.
public enum NativeLibraries {
    /// "speexdsp 1.2.1"
    public static var speexdsp: String { "speexdsp " + String(cString: echolab_native_versions().pointee.speexdsp) }
    /// "webrtc-audio-processing 0.3"
    public static var webrtcAudioProcessing: String {
        "webrtc-audio-processing " + String(cString: echolab_native_versions().pointee.webrtc_audio_processing)
    }
    /// "tg_owt 0~git20230105.5098730+dfsg-2"
    public static var tgOwt: String { "tg_owt " + String(cString: echolab_native_versions().pointee.tg_owt) }
}
