extension Journal {
    /// Every OwnTracks device's topic (docs/integrations.md "OwnTracks"), for a restart.
    public func loadOwnTracksTopics() throws -> [OwnTracksTopic] {
        let rows = try locked { try db.run("SELECT device, topic FROM owntracks_devices") }
        return try rows.map { row in
            OwnTracksTopic(device: try row.text("device", in: "owntracks_devices"), topic: try row.text("topic", in: "owntracks_devices"))
        }
    }
}
