import AppStoreDeviceProtocol
import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import Testing

/// The device protocol's routes, as `HTTPStoreConnection` calls them: the store's errors by kind, requests the
/// server cannot read, and the long poll that tells devices what changed.
@Suite("Device protocol")
struct DeviceProtocolTests {
    func makeServer() -> StoreServer {
        let catalog = Catalog(products: [CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!)])
        let engine = StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: VirtualClock(start: Date(timeIntervalSince1970: 1_768_478_400)), signer: .ephemeral)
        return StoreServer(engine: engine, port: 0)
    }

    func call<Answer: Decodable>(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, body: (some Encodable)? = Optional<String>.none,
        as type: Answer.Type
    ) async throws -> (HTTPResponse.Status, Answer?) {
        let data = try body.map { try DeviceProtocol.makeEncoder().encode($0) }
        return try await client.execute(uri: uri, method: method, body: data.map { ByteBuffer(bytes: $0) }) { response in
            #expect(response.headers[HTTPField.Name(DeviceProtocol.versionHeader)!] == DeviceProtocol.version)
            return (response.status, try? DeviceProtocol.makeDecoder().decode(type, from: Data(response.body.readableBytesView)))
        }
    }

    @Test("A refusal carries the store's error kind and message; a request the server cannot read is a 400 saying what is missing", arguments: RouteTransport.allCases)
    func refusals(transport: RouteTransport) async throws {
        try await transport.test(makeServer()) { client in
            let purchase = PurchaseRequest(productID: "nothing", bundleID: "com.example.demo")
            let (status, refusal) = try await call(client, .post, "/device/purchases", body: purchase, as: DeviceErrorBody.self)
            #expect(status == .notFound)
            #expect(refusal?.error == StoreError.unknownProduct.identifier)
            #expect(refusal?.message.contains("nothing") == true)

            // A refusal answers the status the control API gives the same error: one table (StoreError.httpStatus).
            var tooMany = PurchaseRequest(productID: "premium", bundleID: "com.example.demo")
            tooMany.quantity = 2
            let (refused, refusedBody) = try await call(client, .post, "/device/purchases", body: tooMany, as: DeviceErrorBody.self)
            #expect(refused == .badRequest)
            #expect(refusedBody?.error == StoreError.invalidQuantity.identifier)
            let control = try await client.execute(
                uri: "/control/purchases", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"productId": "premium", "bundleId": "com.example.demo", "quantity": 2}"#)
            ) { $0.status }
            #expect(control == refused)

            let (missing, body) = try await call(client, .get, "/device/unfinished?account=default", as: DeviceErrorBody.self)
            #expect(missing == .badRequest)
            #expect(body?.error == DeviceErrorBody.badRequest)
            #expect(body?.message.contains("\"bundle\"") == true)

            let (garbled, garbage) = try await call(client, .post, "/device/purchases", body: ["product": 1], as: DeviceErrorBody.self)
            #expect(garbled == .badRequest)
            #expect(garbage?.message.contains("PurchaseRequest") == true)
        }
    }

    @Test("The long poll starts at the server's position, brings a purchase as its transaction, and a stale epoch as 'look at everything'", arguments: RouteTransport.allCases)
    func longPoll(transport: RouteTransport) async throws {
        try await transport.test(makeServer()) { client in
            let (_, first) = try await call(client, .get, "/device/changes", as: ChangeBatch.self)
            let start = try #require(first)
            #expect(start.changes.isEmpty)

            let (_, bought) = try await call(
                client, .post, "/device/purchases", body: PurchaseRequest(productID: "premium", bundleID: "com.example.demo"), as: TransactionRecord.self
            )
            let record = try #require(bought)
            let (_, next) = try await call(client, .get, "/device/changes?epoch=\(start.epoch)&after=\(start.sequence)&wait=5", as: ChangeBatch.self)
            #expect(next?.changes == [.transactions([record])])
            #expect(next?.sequence == start.sequence + 1)

            // Nothing new: the poll waits for its time, then answers with no change at the same position.
            let (_, quiet) = try await call(client, .get, "/device/changes?epoch=\(start.epoch)&after=\(start.sequence + 1)&wait=0", as: ChangeBatch.self)
            #expect(quiet?.changes == [])
            #expect(quiet?.sequence == start.sequence + 1)

            // A device that knew another run of the server cannot know what it missed.
            let (_, stale) = try await call(client, .get, "/device/changes?epoch=\(UUID())&after=7&wait=5", as: ChangeBatch.self)
            #expect(stale?.changes == [.other])
            #expect(stale?.epoch == start.epoch)
        }
    }
}
