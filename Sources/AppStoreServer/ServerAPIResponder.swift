import AppStoreEngine
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// How every App Store Server API route answers: it checks the request's token, runs the route for the token's app,
/// and renders the value as JSON, or Apple's error body (`{"errorCode": 4040010, "errorMessage": "…"}`) with the
/// error's HTTP status, or a bare 401 for a token that fails.
struct ServerAPIResponder: Sendable {
    let authenticator: ServerAPIAuthenticator
    let logger: Logger
    /// The time tokens are checked against: backends sign them with wall time, whatever the store's clock says.
    let wallClock: any StoreClock = SystemClock()

    /// Authenticates the request, runs `body` for the token's app, and answers its value as JSON, or Apple's error.
    func respond(
        to request: Request, status: HTTPResponse.Status = .ok, _ body: (String) async throws -> some Encodable
    ) async throws -> Response {
        let bundleID: String
        let authentication: Result<String, AuthenticationFailure>
        do {
            authentication = try await authenticator.bundleID(authorization: request.headers[.authorization], now: wallClock.now())
        } catch {
            logger.error("App Store Server API request not checked: \(error.message)")
            return try Self.json(
                ErrorBody(errorCode: ServerAPIError.generalInternalRetryable.errorCode, errorMessage: ServerAPIError.generalInternalRetryable.errorMessage),
                status: ServerAPIError.generalInternalRetryable.status
            )
        }
        switch authentication {
        case .failure(let failure):
            logger.notice("App Store Server API request refused: \(failure.reason)")
            return Response(status: .unauthorized)
        case .success(let value):
            bundleID = value
        }
        do {
            return try Self.json(try await body(bundleID), status: status)
        } catch let error as any RenderedAPIError {
            return try error.response()
        } catch let error as ServerAPIError {
            return try Self.json(ErrorBody(errorCode: error.errorCode, errorMessage: error.errorMessage), status: error.status)
        } catch let refusal as TokenNotForApp {
            logger.notice("App Store Server API request refused: \(refusal.reason)")
            return Response(status: .unauthorized)
        }
    }

    /// An error that renders its own body and status, for APIs whose error bodies are not `{errorCode, errorMessage}`
    /// (the External Purchase Server API's `SendReportErrorResponse`).
    protocol RenderedAPIError: Error {
        /// The answer.
        func response() throws -> Response
    }

    /// A valid token asked for another app's data: Apple answers a bare 401, as for a token that fails.
    struct TokenNotForApp: Error {
        /// What the token named and what the data belongs to, for the log.
        let reason: String
    }

    /// A JSON answer.
    static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(value)))
        )
    }

    /// Apple's error body.
    private struct ErrorBody: Encodable {
        var errorCode: Int
        var errorMessage: String
    }
}
