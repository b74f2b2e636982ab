#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif
import PurchaseKit
import Testing

/// The receipt reader, on a receipt file of the test's own and refresh requests made by hand.
@Suite("ReceiptReader with doubles")
struct ReceiptReaderTests {
    /// Every refresh request the reader made, in order.
    final class Refreshes: @unchecked Sendable {
        var made: [ReceiptRefreshRequestDouble] = []
    }

    let directory: URL
    let receiptURL: URL
    let refreshes = Refreshes()
    let reader: ReceiptReader
    let receiptBytes = Data([0x30, 0x82, 0x01, 0x00, 0x06, 0x09])

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("PurchaseKitTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        receiptURL = directory.appendingPathComponent("receipt")
        let refreshes = refreshes
        reader = ReceiptReader(receiptURL: receiptURL) { properties in
            let request = ReceiptRefreshRequestDouble(receiptProperties: properties)
            refreshes.made.append(request)
            return request
        }
    }

    @Test("A receipt file is read as it is, and in Base64 for a validation server")
    func readsReceipt() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try receiptBytes.write(to: receiptURL)
        #expect(reader.hasReceipt)
        #expect(try reader.receiptData() == receiptBytes)
        #expect(try reader.base64EncodedReceipt() == receiptBytes.base64EncodedString())
    }

    @Test("Without a file there is no receipt; without a location, no receipt URL")
    func noReceipt() {
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(!reader.hasReceipt)
        #expect(throws: ReceiptError.noReceipt(receiptURL)) { try reader.receiptData() }
        let nowhere = ReceiptReader(receiptURL: nil) { _ in ReceiptRefreshRequestDouble() }
        #expect(!nowhere.hasReceipt)
        #expect(throws: ReceiptError.noReceiptURL) { try nowhere.base64EncodedReceipt() }
        var result: Result<Data, ReceiptError>?
        nowhere.fetchReceipt { result = $0 }
        #expect(result == .failure(.noReceiptURL))
    }

    @Test("Fetching a receipt that is there reads it without a refresh")
    func fetchExisting() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try receiptBytes.write(to: receiptURL)
        var result: Result<Data, ReceiptError>?
        reader.fetchReceipt { result = $0 }
        #expect(result == .success(receiptBytes))
        #expect(refreshes.made.isEmpty)
    }

    @Test("Fetching a missing receipt refreshes it once for every caller waiting, then reads it")
    func fetchRefreshes() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var results: [Result<Data, ReceiptError>] = []
        reader.fetchReceipt { results.append($0) }
        reader.fetchReceipt { results.append($0) }
        let refresh = try #require(refreshes.made.first)
        #expect(refreshes.made.count == 1)
        #expect(refresh.startCount == 1)
        #expect(refresh.receiptProperties == nil)
        #expect(results.isEmpty)
        try refresh.finish(writing: receiptBytes, to: receiptURL)
        #expect(results == [.success(receiptBytes), .success(receiptBytes)])
    }

    @Test("A forced refresh asks the App Store even when there is a receipt")
    func forcedRefresh() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data([0x01]).write(to: receiptURL)
        var result: Result<Data, ReceiptError>?
        reader.fetchReceipt(forceRefresh: true) { result = $0 }
        try #require(refreshes.made.first).finish(writing: receiptBytes, to: receiptURL)
        #expect(result == .success(receiptBytes))
    }

    @Test("A refresh that finds nothing to write leaves no receipt; a refresh that fails says why")
    func refreshWithoutReceipt() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var result: Result<Data, ReceiptError>?
        reader.fetchReceipt { result = $0 }
        try #require(refreshes.made.first).finish(writing: nil, to: receiptURL)
        #expect(result == .failure(.noReceipt(receiptURL)))

        reader.fetchReceipt { result = $0 }
        try #require(refreshes.made.last).fail(SKError(.cloudServiceNetworkConnectionFailed))
        #expect(result == .failure(.refreshFailed(SKError(.cloudServiceNetworkConnectionFailed))))
        #expect(refreshes.made.count == 2)
    }
}
