import AudioCore
import AudioInterop

/// Sums its inputs, each times its own gain (AUGraph's multichannel mixer with per-bus volume
/// and enable). Inputs render in order into one preallocated scratch buffer; a disabled input is
/// not pulled at all, so its source keeps its place (kMultiChannelMixerParam_Enable).
public final class MixerNode: RenderNode {
    public struct Input {
        public let node: RenderNode
        public var gain: Float
        public var isEnabled: Bool
        public init(_ node: RenderNode, gain: Float = 1, isEnabled: Bool = true) {
            self.node = node
            self.gain = gain
            self.isEnabled = isEnabled
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

    /// Enables or disables input `index` from the next pull on.
    public func setEnabled(_ enabled: Bool, forInput index: Int) {
        inputs[index].isEnabled = enabled
    }

    public func render(into buffer: inout [Float], frames: Int) throws -> RenderStatus {
        guard frames <= maximumFrames else { throw RenderGraphError.tooManyFrames(requested: frames, maximum: maximumFrames) }
        var status = RenderStatus.complete
        var first = true
        for index in inputs.indices where inputs[index].isEnabled {
            let node = inputs[index].node, gain = inputs[index].gain
            if first {
                // The first enabled input renders in place: with gain 1 the bus is its samples, bit for bit.
                status = try node.render(into: &buffer, frames: frames)
                if gain != 1 { VectorMath.scale(&buffer, by: gain, count: frames) }
                first = false
            } else {
                status = status.merged(with: try node.render(into: &scratch, frames: frames))
                if gain == 1 {
                    VectorMath.accumulate(scratch, into: &buffer, count: frames)
                } else {
                    VectorMath.accumulate(scratch, gain: gain, into: &buffer, count: frames)
                }
            }
        }
        if first { VectorMath.fill(&buffer, count: frames) }   // nothing enabled: silence
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
