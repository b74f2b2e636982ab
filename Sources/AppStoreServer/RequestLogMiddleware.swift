import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Logs every request once it is answered — method, path, status and duration, with the request ID as
/// `hb.request.id` — and returns the ID as `X-Request-ID`, so a backend's own logs can name the request that failed.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = StoreRequestContext

    static let requestIDField = HTTPField.Name("X-Request-ID")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            var response = try await next(request, context)
            response.headers[Self.requestIDField] = context.id
            log(request, status: response.status.code, since: started, context: context)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            log(request, status: status, since: started, context: context)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, since started: ContinuousClock.Instant, context: Context) {
        let elapsed = started.duration(to: .now)
        let milliseconds = Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.log(
            level: status >= 500 ? .error : .info, "Request",
            metadata: [
                "http.method": .string(request.method.rawValue), "http.path": .string(request.uri.path),
                "http.status": .stringConvertible(status), "duration.ms": .string(String(format: "%.1f", milliseconds)),
            ]
        )
    }
}
