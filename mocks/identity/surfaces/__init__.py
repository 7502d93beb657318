"""The identity system's tool surfaces: ``rest`` (Okta's Management API) and ``typed`` (task level).

Both call the service layer (``mocks/identity/services``); neither decides a rule itself.
"""
