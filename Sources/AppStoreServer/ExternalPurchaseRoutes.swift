import AppStoreEngine
import AppStoreFormats
import Foundation
import HTTPTypes
import Hummingbird
import JSONCoding
import Logging
import NIOCore

/// The body of `PUT /externalPurchase/v1/reports` (`ExternalPurchaseReport`), the fields the store checks.
private struct ExternalPurchaseReportBody: Decodable {
    struct LineItem: Decodable {
        var lineItemId: String?
        /// UNIX milliseconds.
        var creationDate: Double?
        var restatement: Bool?
    }

    var requestIdentifier: String?
    var externalPurchaseId: String?
    var status: String?
    var lineItems: [LineItem]?
}

/// `SendReportSuccessResponse`.
private struct SendReportSuccessResponse: Encodable {
    var requestIdentifier: String
}

/// An External Purchase Server API refusal: `400` with `SendReportErrorResponse` (`{"errors": […]}`), a bare `400` for
/// a malformed request, or `NotFoundError` for a report Retrieve does not know.
private enum ExternalPurchaseAPIError: ServerAPIResponder.RenderedAPIError {
    case rejected([ExternalPurchaseReportProblem])
    case malformed
    case reportNotFound

    func response() throws -> Response {
        switch self {
        case .rejected(let problems):
            return try ServerAPIResponder.json(SendReportErrorResponse(errors: problems), status: .badRequest)
        case .malformed:
            return Response(status: .badRequest)
        case .reportNotFound:
            return try ServerAPIResponder.json(ExternalPurchaseReportProblem.notFound("requestIdentifier"), status: .badRequest)
        }
    }

    private struct SendReportErrorResponse: Encodable {
        var errors: [ExternalPurchaseReportProblem]
    }
}

/// The External Purchase Server API (`/externalPurchase/v1/reports`): a developer's server reports the external purchase
/// tokens the store issued, authenticated with the same API keys as the App Store Server API.
///
/// Send checks a report against the tokens (unknown or another app's token, the status against the line items, line
/// items dated outside a custom link token's active period) and keeps it; Retrieve answers a kept report by its
/// request identifier, for the key's app only.
struct ExternalPurchaseRoutes {
    let engine: StoreEngine
    let authenticator: ServerAPIAuthenticator
    let logger: Logger

    func add(to router: Router<StoreRequestContext>) {
        let api = router.group("externalPurchase")
        api.put("v1/reports") { request, context in
            var request = request
            let text = try? await request.collectBody(upTo: 1 << 20)
            return try await respond(to: request) { bundleID in
                // Decoding a report needs a JSON object (a keyed container): an array or a scalar is malformed too.
                guard let buffer = text, let bytes = buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes),
                      let body = try? JSONReader().decode(ExternalPurchaseReportBody.self, from: bytes)
                else { throw ExternalPurchaseAPIError.malformed }
                // A request identifier is a UUID; a status is one Apple defines: anything else is a malformed request.
                if let identifier = body.requestIdentifier, UUID(uuidString: identifier) == nil { throw ExternalPurchaseAPIError.malformed }
                if let status = body.status, !ExternalPurchaseReportSubmission.statuses.contains(status) { throw ExternalPurchaseAPIError.malformed }
                let submission = ExternalPurchaseReportSubmission(
                    requestIdentifier: body.requestIdentifier, externalPurchaseId: body.externalPurchaseId, status: body.status,
                    lineItems: body.lineItems?.map { item in
                        .init(
                            lineItemId: item.lineItemId, creationDate: item.creationDate.map { Date(timeIntervalSince1970: $0 / 1000) },
                            restatement: item.restatement ?? false
                        )
                    },
                    body: String(decoding: bytes, as: UTF8.self)
                )
                switch try await engine.submitExternalPurchaseReport(submission, bundleID: bundleID) {
                case .success(let record): return SendReportSuccessResponse(requestIdentifier: record.requestIdentifier)
                case .failure(let rejection): throw ExternalPurchaseAPIError.rejected(rejection.problems)
                }
            }
        }
        api.get("v1/reports/:requestIdentifier") { request, context in
            try await respond(to: request) { bundleID in
                let identifier = try context.parameters.require("requestIdentifier")
                guard let record = try await engine.externalPurchaseReport(requestIdentifier: identifier, bundleID: bundleID) else {
                    throw ExternalPurchaseAPIError.reportNotFound
                }
                return RetrieveReportSuccessResponse(report: RawJSON(text: record.body))
            }
        }
    }

    /// Authenticates the request, runs `body` for the token's app, and answers its value as JSON, or the API's error.
    private func respond(to request: Request, _ body: (String) async throws -> some Encodable) async throws -> Response {
        try await ServerAPIResponder(authenticator: authenticator, logger: logger).respond(to: request, body)
    }
}

/// `RetrieveReportSuccessResponse`: the report as it was accepted.
private struct RetrieveReportSuccessResponse: Encodable {
    var report: RawJSON
}

/// A JSON object kept as text, encoded as the value it is.
private struct RawJSON: Encodable {
    let text: String

    func encode(to encoder: any Encoder) throws {
        try EncodableJSON(value: JSONValue.parse(Data(text.utf8))).encode(to: encoder)
    }
}

/// A parsed JSON value, encoded member by member in its order.
private struct EncodableJSON: Encodable {
    let value: JSONValue

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if let integer = Int64(text) { try container.encode(integer) } else { try container.encode(Double(text) ?? 0) }
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(EncodableJSON(value: element)) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for member in members { try container.encode(EncodableJSON(value: member.value), forKey: Key(stringValue: member.key)) }
        }
    }
}
