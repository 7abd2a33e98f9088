/// A shipped device that runs on its own app timer, as the reference code's devices do:
/// `start()` after selecting it, `stop()` before resetting to the default device.
public protocol TimerDrivenDevice: AnyObject {
    func start() throws
    func stop()
    /// The first error the device met while running (reading its file, writing its recording).
    var failure: Error? { get }
}

extension PassThroughMicrophone: TimerDrivenDevice {
    public var failure: Error? { nil }
}
extension SourceMicrophone: TimerDrivenDevice {}
extension AppDrivenSpeaker: TimerDrivenDevice {}
extension RecordingSpeaker: TimerDrivenDevice {}
