/// An offline pull-model graph: the app (or a device's timer) calls `render(frames:)`, the output
/// node pulls its inputs, and the result lands in `output`. Nothing runs on its own: the caller's
/// clock (a virtual-time timer) is the graph's clock, like AVAudioEngine's manual rendering mode.
public final class RenderGraph {
    public let outputNode: RenderNode
    /// The last pull's frames (`output[0..<frames]`); preallocated to `maximumFrames`.
    public private(set) var output: [Float]
    /// Pulls that came back short, and the real frames rendered in all.
    public private(set) var insufficientPulls = 0
    public private(set) var renderedFrames: Int64 = 0
    public private(set) var missingFrames: Int64 = 0

    /// The most frames one pull may ask for.
    public let maximumFrames: Int

    public init(output: RenderNode) {
        outputNode = output
        maximumFrames = output.maximumFrames
        self.output = [Float](repeating: 0, count: output.maximumFrames)
    }

    /// Pulls `frames` frames through the graph. Short data is reported in the status (and
    /// counted), with the missing frames silent.
    @discardableResult
    public func render(frames: Int) throws -> RenderStatus {
        try render(into: &output, frames: frames)
    }

    /// Pulls `frames` frames into the caller's `buffer` instead of `output` (a graph that feeds a
    /// block the caller owns, without a copy), counted the same way.
    @discardableResult
    public func render(into buffer: inout [Float], frames: Int) throws -> RenderStatus {
        // Not `output.count`: `render(frames:)` passes `output` itself as `buffer`.
        guard frames <= maximumFrames else { throw RenderGraphError.tooManyFrames(requested: frames, maximum: maximumFrames) }
        precondition(buffer.count >= frames, "RenderGraph: the buffer is shorter than the pull")
        let status = try outputNode.render(into: &buffer, frames: frames)
        switch status {
        case .complete: renderedFrames += Int64(frames)
        case .insufficientData(let rendered):
            insufficientPulls += 1
            renderedFrames += Int64(rendered)
            missingFrames += Int64(frames - rendered)
        }
        return status
    }
}
