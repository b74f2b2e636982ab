import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// How every control-API route answers: key-sorted JSON with ISO 8601 dates, and refusals as `{"error": message}`.
enum ControlResponse {
    /// A JSON answer.
    static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let body: Data
        if let summary = value as? TransactionSummary {
            body = summary.controlJSON()
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            body = try encoder.encode(value)
        }
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A refusal that says what to send instead.
    static func error(_ message: String, status: HTTPResponse.Status) throws -> Response {
        try json(["error": message], status: status)
    }
}
