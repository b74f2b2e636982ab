import Foundation

/// What the Retention Messaging API keeps for each app of one store: uploaded images and messages with their review
/// states, default messages by product and locale, the Get Retention Message URL, and performance tests.
///
/// Everything lives in memory while the server runs, per app (the `bid` of the request's token): a restarted server,
/// or a reset tenant, starts with none. Uploads are reviewed at once and come out `APPROVED`, as Apple's sandbox
/// approves them without App Review; ``setImageState(_:of:bundleID:)`` and ``setMessageState(_:of:bundleID:)`` put
/// them in another state, to see what a backend does with a pending or rejected message.
actor RetentionMessagingStore {
    /// Apple's review states of images and messages.
    enum ReviewState: String, Sendable, CaseIterable {
        case pending = "PENDING"
        case approved = "APPROVED"
        case rejected = "REJECTED"
    }

    /// Apple's image sizes: a full-size image above the message body, or a bullet-point icon.
    enum ImageSize: String, Sendable {
        case fullSize = "FULL_SIZE"
        case bulletPoint = "BULLET_POINT"
    }

    /// An uploaded image. The bytes are checked and dropped: nothing shows them.
    struct Image: Sendable {
        var id: UUID
        var size: ImageSize
        var state: ReviewState
    }

    /// An uploaded message and the images it shows: its own, then its bullet points'.
    struct Message: Sendable {
        var id: UUID
        var imageIDs: [UUID]
        var state: ReviewState
    }

    /// A message as Upload Message describes it, checked by ``uploadMessage(_:bundleID:)``.
    struct MessageUpload: Sendable {
        struct BulletPoint: Sendable {
            var text: String
            var imageID: UUID
            var altText: String
        }

        var id: UUID
        var header: String
        var body: String
        var image: (id: UUID, altText: String)?
        var headerAboveImage: Bool
        var bulletPoints: [BulletPoint]
    }

    /// Apple's limit on images per app.
    static let maximumImages = 2_000
    /// The limit on messages per app. Apple documents that there is one but not its value here; the store allows as
    /// many messages as images.
    static let maximumMessages = 2_000
    /// Apple's length limits, counted in Unicode scalars as Apple's own clients count them.
    static let maximumHeader = 66, maximumBody = 144, maximumAltText = 150, maximumBulletPoints = 5, maximumBulletPointText = 66

    /// One app's retention messaging configuration.
    private struct App {
        var images: [Image] = []
        var messages: [Message] = []
        var defaults: [String: UUID] = [:]
        var realtimeURL: URL?
        var performanceTests: [UUID: PerformanceTestRun] = [:]
        var runningTest: UUID?
    }

    private var apps: [String: App] = [:]
    private var runs: [UUID: Task<Void, Never>] = [:]

    // MARK: Images

    /// Adds an image in `APPROVED` state.
    ///
    /// - Throws: ``ServerAPIError`` 409 `imageAlreadyExists` for a known identifier, 403 `maximumImages` past 2000.
    func addImage(_ id: UUID, size: ImageSize, bundleID: String) throws(ServerAPIError) {
        var app = apps[bundleID] ?? App()
        guard !app.images.contains(where: { $0.id == id }) else { throw .imageAlreadyExists }
        guard app.images.count < Self.maximumImages else { throw .maximumImages }
        app.images.append(Image(id: id, size: size, state: .approved))
        apps[bundleID] = app
    }

    /// Deletes an image no message shows.
    ///
    /// - Throws: ``ServerAPIError`` 404 `imageNotFound`, 403 `imageInUse` while a message shows it.
    func deleteImage(_ id: UUID, bundleID: String) throws(ServerAPIError) {
        var app = apps[bundleID] ?? App()
        guard let index = app.images.firstIndex(where: { $0.id == id }) else { throw .imageNotFound }
        guard !app.messages.contains(where: { $0.imageIDs.contains(id) }) else { throw .imageInUse }
        app.images.remove(at: index)
        apps[bundleID] = app
    }

    /// The app's images, in upload order.
    func images(bundleID: String) -> [Image] {
        apps[bundleID]?.images ?? []
    }

    /// Puts an image in a review state; `false` when the app has no such image.
    func setImageState(_ state: ReviewState, of id: UUID, bundleID: String) -> Bool {
        guard let index = apps[bundleID]?.images.firstIndex(where: { $0.id == id }) else { return false }
        apps[bundleID]?.images[index].state = state
        return true
    }

    // MARK: Messages

    /// Adds a message in `APPROVED` state, checked as Apple checks it: lengths, bullet points, and images that exist and
    /// are the right size for where they appear.
    ///
    /// - Throws: ``ServerAPIError``: 409 `messageAlreadyExists`; 400 `headerTooLong`, `bodyTooLong`, `altTextTooLong`,
    ///   `tooManyBulletPoints`, `bulletPointTextTooLong`, `aboveImageRequiresImage`, `badImageSize`; 404
    ///   `imageNotFound`; 403 `maximumMessages`.
    func uploadMessage(_ upload: MessageUpload, bundleID: String) throws(ServerAPIError) {
        var app = apps[bundleID] ?? App()
        guard !app.messages.contains(where: { $0.id == upload.id }) else { throw .messageAlreadyExists }
        guard upload.header.unicodeScalars.count <= Self.maximumHeader else { throw .headerTooLong }
        guard upload.body.unicodeScalars.count <= Self.maximumBody else { throw .bodyTooLong }
        guard upload.bulletPoints.count <= Self.maximumBulletPoints else { throw .tooManyBulletPoints }
        var imageIDs: [UUID] = []
        if let image = upload.image {
            guard image.altText.unicodeScalars.count <= Self.maximumAltText else { throw .altTextTooLong }
            guard let known = app.images.first(where: { $0.id == image.id }) else { throw .imageNotFound }
            guard known.size == .fullSize else { throw .badImageSize }
            imageIDs.append(image.id)
        } else if upload.headerAboveImage {
            throw .aboveImageRequiresImage
        }
        for point in upload.bulletPoints {
            guard point.text.unicodeScalars.count <= Self.maximumBulletPointText else { throw .bulletPointTextTooLong }
            guard point.altText.unicodeScalars.count <= Self.maximumAltText else { throw .altTextTooLong }
            guard let known = app.images.first(where: { $0.id == point.imageID }) else { throw .imageNotFound }
            guard known.size == .bulletPoint else { throw .badImageSize }
            imageIDs.append(point.imageID)
        }
        guard app.messages.count < Self.maximumMessages else { throw .maximumMessages }
        app.messages.append(Message(id: upload.id, imageIDs: imageIDs, state: .approved))
        apps[bundleID] = app
    }

    /// Deletes a message, and the default-message configurations that named it (Apple's documentation says nothing of
    /// them; a default that shows a deleted message would show nothing).
    ///
    /// - Throws: ``ServerAPIError`` 404 `messageNotFound`.
    func deleteMessage(_ id: UUID, bundleID: String) throws(ServerAPIError) {
        var app = apps[bundleID] ?? App()
        guard let index = app.messages.firstIndex(where: { $0.id == id }) else { throw .messageNotFound }
        app.messages.remove(at: index)
        app.defaults = app.defaults.filter { $0.value != id }
        apps[bundleID] = app
    }

    /// The app's messages, in upload order.
    func messages(bundleID: String) -> [Message] {
        apps[bundleID]?.messages ?? []
    }

    /// Puts a message in a review state; `false` when the app has no such message.
    func setMessageState(_ state: ReviewState, of id: UUID, bundleID: String) -> Bool {
        guard let index = apps[bundleID]?.messages.firstIndex(where: { $0.id == id }) else { return false }
        apps[bundleID]?.messages[index].state = state
        return true
    }

    // MARK: Default messages

    /// Makes a message the default for a product in a locale, replacing any other.
    ///
    /// - Throws: ``ServerAPIError`` 404 `messageNotFound`, 403 `messageNotApproved` or `imageNotApproved` when the
    ///   message or an image it shows is not `APPROVED`.
    func configureDefault(_ messageID: UUID, productID: String, locale: String, bundleID: String) throws(ServerAPIError) {
        var app = apps[bundleID] ?? App()
        guard let message = app.messages.first(where: { $0.id == messageID }) else { throw .messageNotFound }
        guard message.state == .approved else { throw .messageNotApproved }
        for imageID in message.imageIDs where app.images.first(where: { $0.id == imageID })?.state != .approved {
            throw .imageNotApproved
        }
        app.defaults[Self.key(productID, locale)] = messageID
        apps[bundleID] = app
    }

    /// The default message of a product in a locale, if one is configured.
    func defaultMessage(productID: String, locale: String, bundleID: String) -> UUID? {
        apps[bundleID]?.defaults[Self.key(productID, locale)]
    }

    /// Removes the default message of a product in a locale, if there is one.
    func deleteDefault(productID: String, locale: String, bundleID: String) {
        apps[bundleID]?.defaults[Self.key(productID, locale)] = nil
    }

    private static func key(_ productID: String, _ locale: String) -> String {
        "\(productID)\u{1F}\(locale)"
    }

    // MARK: Realtime URL

    /// Sets or, with `nil`, removes the app's Get Retention Message URL.
    func setRealtimeURL(_ url: URL?, bundleID: String) {
        var app = apps[bundleID] ?? App()
        app.realtimeURL = url
        apps[bundleID] = app
    }

    /// The app's Get Retention Message URL, if configured.
    func realtimeURL(bundleID: String) -> URL? {
        apps[bundleID]?.realtimeURL
    }

    // MARK: Performance tests

    /// Starts `test` for the app unless one is running, and runs it in the background; its results fill in as its
    /// requests finish.
    ///
    /// - Throws: ``ServerAPIError`` 400 `existingPerformanceTestRun` while another test of the app runs.
    func startPerformanceTest(_ test: PerformanceTest, bundleID: String) throws(ServerAPIError) {
        var app = apps[bundleID] ?? App()
        if let running = app.runningTest, app.performanceTests[running]?.isFinished == false { throw .existingPerformanceTestRun }
        app.performanceTests[test.id] = PerformanceTestRun(target: test.target, settings: test.settings)
        app.runningTest = test.id
        apps[bundleID] = app
        runs[test.id] = Task {
            await test.run { outcome in await self.record(outcome, test: test.id, bundleID: bundleID) }
        }
    }

    /// A performance test of the app, as far as it has run.
    func performanceTest(_ id: UUID, bundleID: String) -> PerformanceTestRun? {
        apps[bundleID]?.performanceTests[id]
    }

    /// Waits until a performance test has sent all its requests; for tests and for embedders that want the result.
    func performanceTestFinished(_ id: UUID) async {
        await runs[id]?.value
    }

    private func record(_ outcome: PerformanceTestRun.Outcome, test id: UUID, bundleID: String) {
        apps[bundleID]?.performanceTests[id]?.outcomes.append(outcome)
    }
}
