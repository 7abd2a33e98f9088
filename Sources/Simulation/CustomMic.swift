import AudioCore

/// A custom audio source (PlanetKit's `PlanetKitCustomMic`, Agora's external audio source):
/// subclass it, run your own timer (a `RepeatingTimer` on the call's scheduler stands in for
/// `DispatchSourceTimer`) and call `sendAudio(_:)` with whatever you have — Float32 or Int16,
/// any frame count, any sample rate, mono or interleaved stereo (downmixed).
///
/// While this mic is selected (`AudioManager.setCustomMic`), the engine reads it every 10 ms
/// through a `CadenceBuffer`: it starts once one of your bursts plus one tick is buffered, goes
/// silent and counts an underrun when you fall behind, drops the oldest audio and counts an
/// overrun when you run ahead by more than a second.
open class CustomMic {
    let conditioner = InputConditioner(engineRate: AudioFormat.engine.sampleRate)
    var buffer = CadenceBuffer(capacity: AudioFormat.engine.sampleRate)
    /// The buffer's overruns and the frames refused for their format, as the engine last read
    /// this mic, and the ticks it still reads across audio lost there (`SimulatedCall`): each mic
    /// its own, so another mic's losses never mark this one's audio.
    var lossesSeen: Int64 = 0
    var splicedTicksLeft = 0
    /// True while the engine reads this mic.
    public internal(set) var isInUse = false
    /// The call's audio manager that set it, while it is in use: another call's is refused.
    weak var manager: AudioManager?
    /// Frames pushed while the mic was not selected: ignored, as the SDK ignores them.
    public private(set) var ignoredFrames: Int64 = 0

    public init() {}

    /// Whether this source is a real microphone (it picks up the loudspeaker, so echo
    /// cancellation is needed). Files, streams and TTS are not; the lint checks AEC against it.
    /// In a simulated call the one microphone is the room's (`SimulatedCall.microphone`): true
    /// says that what this mic pushes is that, and the meter measures its echo from the room's
    /// echo track. A mic that pushes anything else must say false, or its stretch reads the
    /// room's ERL and an ERLE of what it sent. (Zeros pushed to mute are told apart: no figures.)
    open var isRealMicrophone: Bool { false }

    /// A name for reports.
    open var deviceName: String { String(describing: type(of: self)) }

    /// Pushes audio to the call. Returns false (and ignores the audio) while not selected.
    @discardableResult
    public final func sendAudio<Sample: PCMSample>(_ audioBuffer: PCMBuffer<Sample>) -> Bool {
        guard isInUse else {
            ignoredFrames += Int64(audioBuffer.frameCount)
            return false
        }
        conditioner.append(audioBuffer, to: &buffer)
        return true
    }

    /// Called when the mic is set (`setCustomMic`), before the engine reads it: start pushing
    /// frames now. `isInUse` is true from here; the engine switches to the mic once it holds a
    /// frame (its priming, about one push later), and the call's events log that instant.
    open func didStartCapturing() {}
    /// Called once when the engine stops reading this mic: reset to the default mic (once the
    /// engine has switched away from it) or the call ended with it in use.
    open func didStopCapturing() {}
}
