"""The chat system's tool surfaces: ``rest`` (Slack's Web API methods) and ``typed`` (task level).

Both call the service layer (``mocks/chat/services``); neither decides a rule itself.
"""
