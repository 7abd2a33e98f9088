import AudioCore
import AudioInterop

/// Sums its inputs, each times its own gain (AUGraph's multichannel mixer with per-bus volume).
/// Inputs render in order into one preallocated scratch buffer.
public final class MixerNode: RenderNode {
    public struct Input {
        public let node: RenderNode
        public var gain: Float
        public init(_ node: RenderNode, gain: Float = 1) {
            self.node = node
            self.gain = gain
        }
    }

    public private(set) var inputs: [Input]
    public let maximumFrames: Int
    private var scratch: [Float]

    public init(inputs: [Input], maximumFrames: Int) {
        self.inputs = inputs
        self.maximumFrames = maximumFrames
        scratch = [Float](repeating: 0, count: maximumFrames)
    }

    /// Changes input `index`'s gain (a linear factor) from the next pull on.
    public func setGain(_ gain: Float, forInput index: Int) {
        inputs[index].gain = gain
    }

    public func render(into buffer: inout [Float], frames: Int) throws -> RenderStatus {
        guard frames <= maximumFrames else { throw RenderGraphError.tooManyFrames(requested: frames, maximum: maximumFrames) }
        guard !inputs.isEmpty else {
            VectorMath.fill(&buffer, count: frames)
            return .complete
        }
        var status = try inputs[0].node.render(into: &buffer, frames: frames)
        let first = inputs[0].gain
        if first != 1 { for i in 0..<frames { buffer[i] *= first } }
        for input in inputs.dropFirst() {
            status = status.merged(with: try input.node.render(into: &scratch, frames: frames))
            let gain = input.gain
            for i in 0..<frames { buffer[i] += scratch[i] * gain }
        }
        return status
    }
}

/// Passes its input through and writes every rendered frame to a sound file (a recorder tap on
/// the graph's bus). Without a writer it is a plain pass-through.
public final class RecorderTapNode: RenderNode {
    public let input: RenderNode
    public var writer: SoundFileWriter?
    public var maximumFrames: Int { input.maximumFrames }

    public init(input: RenderNode, writer: SoundFileWriter? = nil) {
        self.input = input
        self.writer = writer
    }

    public func render(into buffer: inout [Float], frames: Int) throws -> RenderStatus {
        let status = try input.render(into: &buffer, frames: frames)
        try writer?.write(buffer, frames: frames)
        return status
    }
}
