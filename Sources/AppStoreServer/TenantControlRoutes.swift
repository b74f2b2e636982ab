import AppStoreEngine
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StoreKitConfiguration

/// The body of `POST /control/tenants` and of each entry of `GET /control/tenants`.
struct TenantResponse: Encodable {
    var name: String
    /// Where the tenant's routes are: `/t/{name}/`.
    var path: String
    var products: Int
}

/// The server-wide part of the control API: create, list, reset, export and import tenants, and replace what one sells.
///
/// The routes exist on the server's own paths only (`/control/tenants…`), never under `/t/{tenant}/`.
struct TenantControlRoutes {
    let tenants: TenantDirectory

    func add(to router: Router<StoreRequestContext>) {
        router.on(.listTenants) { _, _ in
            let summaries: [TenantSummary]
            do throws(StoreError) {
                summaries = try await tenants.summaries()
            } catch {
                return try self.error(error)
            }
            return try json(["tenants": summaries], status: .ok)
        }
        router.on(.createTenant) { request, _ in
            // {"name": …, "configuration": {…a .storekit file…}}: parsed once by the .storekit loader's own reader,
            // which then checks the configuration as it stands in the body (a fleet of CI jobs makes a tenant per
            // test, and parsing it again from re-encoded bytes was a third of a creation's time).
            let data = Data(try await request.body.collect(upTo: 16 << 20).readableBytesView)
            guard case .object(let object)? = try? ConfigurationJSON(parsing: data), case .string(let name)? = object["name"] else {
                return try error(#"Give {"name": "checkout-tests"} and optionally "configuration": the JSON of a .storekit file."#, status: .badRequest)
            }
            let configuration: StoreKitConfigurationFile?
            do {
                configuration = try object["configuration"].map { value throws(ConfigurationError) in
                    try StoreKitConfigurationFile(json: value, sourceName: "configuration")
                }
            } catch {
                return try self.error("The configuration is not a usable .storekit file: \(error)", status: .badRequest)
            }
            let tenant: TenantDirectory.Tenant
            do throws(TenantError) {
                tenant = try await tenants.create(name, configuration: configuration)
            } catch {
                return try self.error(error.message, status: error.httpStatus)
            }
            let products = await tenant.engine.catalog.products.count
            return try json(TenantResponse(name: name, path: "/t/\(name)/", products: products), status: .created)
        }
        router.on(.resetTenant) { _, context in
            guard let name = tenantName(context) else { return try invalidName(context) }
            let products: Int
            do throws(StoreError) {
                try await tenants.reset(name)
                products = try await tenants.tenant(name).engine.catalog.products.count
            } catch {
                return try self.error(error)
            }
            return try json(TenantResponse(name: name, path: "/t/\(name)/", products: products), status: .ok)
        }
        router.on(.deleteTenant) { _, context in
            guard let name = tenantName(context) else { return try invalidName(context) }
            do throws(TenantError) {
                try await tenants.delete(name)
            } catch {
                return try self.error(error.message, status: error.httpStatus)
            }
            return Response(status: .noContent)
        }
        router.on(.exportTenant) { _, context in
            guard let name = tenantName(context) else { return try invalidName(context) }
            let snapshot: TenantSnapshot
            do throws(StoreError) {
                snapshot = try await tenants.export(name)
            } catch {
                return try self.error(error)
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: try TenantSnapshot.makeEncoder().encode(snapshot)))
            )
        }
        router.on(.importTenant) { request, context in
            guard let name = tenantName(context) else { return try invalidName(context) }
            let data = Data(try await request.body.collect(upTo: 256 << 20).readableBytesView)
            let snapshot: TenantSnapshot
            do {
                snapshot = try TenantSnapshot.makeDecoder().decode(TenantSnapshot.self, from: data)
            } catch {
                return try self.error("The body is not a tenant export (GET /control/tenants/{name}/export): \(error)", status: .badRequest)
            }
            do throws(StoreError) {
                try await tenants.restore(name, from: snapshot)
            } catch {
                return try self.error(error)
            }
            return try json(["name": name, "transactions": String(snapshot.transactions.count)], status: .ok)
        }
        router.on(.replaceTenantCatalog) { request, context in
            guard let name = tenantName(context) else { return try invalidName(context) }
            let data = Data(try await request.body.collect(upTo: 16 << 20).readableBytesView)
            let configuration: StoreKitConfigurationFile
            do {
                configuration = try StoreKitConfigurationFile(data: data, sourceName: "body")
            } catch {
                return try self.error("The body is not a usable .storekit file: \(error)", status: .badRequest)
            }
            let products: Int
            do throws(StoreError) {
                try await tenants.replaceCatalog(of: name, with: configuration)
                products = try await tenants.tenant(name).engine.catalog.products.count
            } catch {
                return try self.error(error)
            }
            return try json(TenantResponse(name: name, path: "/t/\(name)/", products: products), status: .ok)
        }
    }

    /// The tenant the path names, when the name is valid.
    private func tenantName(_ context: StoreRequestContext) -> String? {
        context.parameters.get("name").flatMap { TenantDirectory.isValidName($0) ? $0 : nil }
    }

    private func invalidName(_ context: StoreRequestContext) throws -> Response {
        try error("\"\(context.parameters.get("name") ?? "")\" is not a tenant name: use 1 to 64 letters, digits, '.', '_' or '-'.", status: .badRequest)
    }

    private func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        try ControlResponse.json(value, status: status)
    }

    private func error(_ message: String, status: HTTPResponse.Status) throws -> Response {
        try ControlResponse.error(message, status: status)
    }

    /// A store's refusal, with the status every surface gives it (``StoreError/httpStatus``).
    private func error(_ error: StoreError) throws -> Response {
        try ControlResponse.error(error.message, status: error.httpStatus)
    }
}
