import AppStoreEngine
import AppStoreFormats
import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// The transaction manager: a web page at `/` (and `/t/{tenant}/`) that shows a store and steers it.
///
/// The page is rendered here, section by section, from the engine; its buttons and forms call the control API, and a
/// little JavaScript re-renders a section when `GET /control/events` says that what it shows changed. So the page
/// holds no state of its own, and whatever it does, `curl` and `storekit` can do too.
///
/// - `GET /`: the whole page.
/// - `GET /manage/sections/{name}`: one section, for live updates (`clock`, `settings`, `buy`, `transactions`,
///   `notifications`, `catalog`); `transactions` takes the filters `account`, `app`, `product` and `state`.
/// - `GET /manage/transactions/{id}`, `GET /manage/notifications/{uuid}`: what a row shows when expanded.
/// - `GET /manage/assets/{file}`: the stylesheet and the script, served from the binary.
struct TransactionManagerRoutes {
    let engine: StoreEngine
    let notificationSender: NotificationSender?
    /// The server's tenants, for the tenant picker; `nil` on a server without tenants.
    let tenants: TenantDirectory?
    /// Where this store's routes start: `/`, or `/t/{tenant}/`.
    let basePath: String
    /// The name of the store at the server's bare paths, when this is a tenant's page; `nil` on the server's own.
    let serverStoreName: String?

    func add(to router: Router<StoreRequestContext>) {
        let pages = ManagerPages(
            engine: engine, notificationSender: notificationSender, tenants: tenants, basePath: basePath, serverStoreName: serverStoreName
        )
        router.get("/") { request, _ in
            try await html { try await pages.page(filters: TransactionFilters(request)) }
        }
        router.get("manage/sections/:name") { request, context in
            try await html {
                let filters = TransactionFilters(request)
                guard let name = context.parameters.get("name"), let section = try await pages.section(name, filters: filters) else {
                    throw ManagerError.notFound("No section \"\(context.parameters.get("name") ?? "")\". The sections are \(ManagerPages.sectionNames.joined(separator: ", ")).")
                }
                return section
            }
        }
        router.get("manage/transactions/:id") { _, context in
            try await html {
                guard let id = context.parameters.get("id").flatMap(UInt64.init) else {
                    throw ManagerError.notFound("Not a transaction identifier.")
                }
                return try await pages.transactionDetail(id)
            }
        }
        router.get("manage/notifications/:uuid") { _, context in
            try await html {
                guard let id = context.parameters.get("uuid").flatMap(UUID.init(uuidString:)) else {
                    throw ManagerError.notFound("Not a notification identifier.")
                }
                return try await pages.notificationDetail(id)
            }
        }
        router.get("manage/assets/:file") { _, context in
            guard let asset = ManagerAssets.named(context.parameters.get("file") ?? "") else {
                return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: "No such asset.")))
            }
            return Response(
                status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-cache"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: asset.text))
            )
        }
    }

    /// Answers the HTML `body` renders; a refusal of the store becomes a short message with its status.
    private func html(_ body: () async throws -> String) async throws -> Response {
        let status: HTTPResponse.Status
        let text: String
        do {
            text = try await body()
            status = .ok
        } catch let error as ManagerError {
            text = "<p class=\"message error\" role=\"alert\">\(ManagerPages.escape(error.message))</p>"
            status = .notFound
        } catch let error as StoreError {
            text = "<p class=\"message error\" role=\"alert\">\(ManagerPages.escape(error.message))</p>"
            status = error.httpStatus
        }
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }
}

/// A page request the manager cannot answer.
struct ManagerError: Error {
    let message: String
    static func notFound(_ message: String) -> ManagerError { ManagerError(message: message) }
}

/// Which transactions the page lists: every field unset lists them all.
struct TransactionFilters: Sendable {
    var account: String?
    var app: String?
    var product: String?
    /// A state as `TransactionSummary.state` names it, or `refunded`.
    var state: String?

    init(_ request: Request) {
        let parameters = request.uri.queryParameters
        func value(_ name: String) -> String? {
            parameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        }
        account = value("account")
        app = value("app")
        product = value("product")
        state = value("state")
    }

    func matches(_ summary: TransactionSummary) -> Bool {
        if let product, summary.productId != product { return false }
        let shown = TransactionRow.shownState(of: summary)
        switch state {
        case nil: return true
        case "failed": return shown.hasPrefix("failed")
        case let state?: return shown == state
        }
    }
}
