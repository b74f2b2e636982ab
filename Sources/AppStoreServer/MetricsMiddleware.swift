import HTTPTypes
import Hummingbird

/// Counts every request the server answers in ``StoreMetrics``, by route group, method and status, and records how
/// long it took.
///
/// Paths are reduced to a handful of groups so that identifiers in them (transactions, tenants, tokens) never become
/// label values: `/t/{tenant}/…` counts as the route it reaches.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = StoreRequestContext

    let metrics: StoreMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let group = Self.group(ofPath: request.uri.path), method = Self.methodLabel(request.method)
        do {
            let response = try await next(request, context)
            metrics.recordRequest(group: group, method: method, status: response.status.code, duration: started.duration(to: .now))
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.recordRequest(group: group, method: method, status: status, duration: started.duration(to: .now))
            throw error
        }
    }

    /// The route group a path belongs to, for the `group` label.
    static func group(ofPath path: String) -> String {
        var segments = path.split(separator: "/", omittingEmptySubsequences: true)
        if segments.count >= 2, segments[0] == "t" { segments.removeFirst(2) }
        guard let first = segments.first else { return "transaction_manager" }
        switch first {
        case "health": return "health"
        case "metrics": return "metrics"
        case "v1": return "products"
        case "device": return "device"
        case "control": return "control"
        case "manage": return "transaction_manager"
        case "verifyReceipt", "sandbox": return "verify_receipt"
        case "inApps": return segments.count > 2 && segments[2] == "messaging" ? "retention_messaging" : "server_api"
        default: return "other"
        }
    }

    /// The method, or `other` for one the server has no routes for, so the label has a few values only.
    static func methodLabel(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get, .head, .post, .put, .patch, .delete, .options: method.rawValue
        default: "other"
        }
    }
}
