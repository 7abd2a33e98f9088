import AudioCore

/// What one pull produced: every frame, or fewer real frames than asked (the rest is silence).
/// Running dry is a status the caller decides about, never a crash.
public enum RenderStatus: Hashable, Sendable {
    case complete
    /// Only `rendered` of the requested frames were real audio; the rest are zeros.
    case insufficientData(rendered: Int)

    /// Combines the statuses of two inputs rendered side by side (a mixer): the poorer one.
    func merged(with other: RenderStatus) -> RenderStatus {
        switch (self, other) {
        case (.complete, _): other
        case (_, .complete): self
        case (.insufficientData(let a), .insufficientData(let b)): .insufficientData(rendered: min(a, b))
        }
    }
}

/// Errors of building or pulling a render graph.
public enum RenderGraphError: DescribedError, Equatable {
    /// A pull asked for more frames than the graph was built for (its buffers are preallocated).
    case tooManyFrames(requested: Int, maximum: Int)

    public var description: String {
        switch self {
        case .tooManyFrames(let requested, let maximum):
            "render graph: \(requested) frames requested, the graph renders at most \(maximum) per pull"
        }
    }
}

/// A node of a pull-model graph (AUGraph, AVAudioEngine's manual rendering): asked for `frames`
/// mono frames, it fills `buffer[0..<frames]`, pulling its own inputs first. Nodes allocate at
/// build time only; a pull copies into buffers they already own.
public protocol RenderNode: AnyObject {
    /// The most frames one pull may ask for (the size of the node's preallocated buffers).
    var maximumFrames: Int { get }
    func render(into buffer: inout [Float], frames: Int) throws -> RenderStatus
}
