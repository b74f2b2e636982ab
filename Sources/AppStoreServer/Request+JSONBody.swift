import AppStoreEngine
import Foundation
import Hummingbird

extension Request {
    /// The body read as JSON into `type`, as Hummingbird's `decode(as:context:)` reads it with its default
    /// `JSONDecoder`, at most `context.maxUploadSize` bytes.
    ///
    /// `RowJSONDecoder` reads it: small bodies several times faster than `JSONDecoder`, which turns every object into a
    /// dictionary first (2% of a purchase's CPU). It never answers differently: whatever it does not read itself, and
    /// every error, it leaves to `JSONDecoder`.
    func decodeJSON<Body: Decodable>(as type: Body.Type, context: some RequestContext) async throws -> Body {
        let buffer = try await body.collect(upTo: context.maxUploadSize)
        guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
            // Not UTF-8: JSONDecoder says so, where reading it as a String would have repaired it.
            return try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
        }
        return try RowJSONDecoder().decode(type, from: text)
    }
}
