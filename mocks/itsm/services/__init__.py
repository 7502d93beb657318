"""The ITSM service layer: every behaviour rule of the mock, enforced once.

Importing this package registers each table's business rules with the record service.
"""

from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.services.catalog import RequestedItemRules, RequestRules
from enterprise_envs.mocks.itsm.services.change import ApprovalRules, ChangeRequestRules
from enterprise_envs.mocks.itsm.services.incident import IncidentRules
from enterprise_envs.mocks.itsm.services.problem import ProblemRules

records.register("incident", IncidentRules())
records.register("problem", ProblemRules())
records.register("change_request", ChangeRequestRules())
records.register("sysapproval_approver", ApprovalRules())
records.register("sc_request", RequestRules())
records.register("sc_req_item", RequestedItemRules())
