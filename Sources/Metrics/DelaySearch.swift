/// One search for the bulk delay of a stream's echo (GCC-PHAT over its first far-end blocks):
/// from sample 0, and again from each echo-path change its owner reports
/// (`EchoAnalysisStream.searchDelayAgain(from:)`: a route change brings its own path and delay).
public struct DelaySearch: Equatable, Sendable {
    /// Where the search started: 0, or the sample where the echo path changed.
    public var startSample: Int
    /// The delay it found, in samples (fractional); nil where it found none.
    public var delaySamples: Double?
    /// Why it found none, as `DelayBlockCollector` tells: the echo lies outside the search's range,
    /// the far end is tonal, or no echo reached the mic in any of its far-end blocks.
    var echoOutsideSearch = false
    var referenceIsTonal = false
    var noEchoInWarmup = false

    init(startSample: Int) { self.startSample = startSample }
}
