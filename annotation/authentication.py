"""Token authentication for the API, with the token and its user read in one hand-written query.

DRF's ``TokenAuthentication`` reads them with ``select_related``, whose compilation cost more
than the rest of the check on every request of the annotator's loop; this reads the same two
rows, checks the same things and fails with the same messages.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from annotation import hand_sql


class FastTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key):
        User = get_user_model()
        quote = connection.ops.quote_name
        sql = (f"SELECT {hand_sql.columns(Token, 't')}, {hand_sql.columns(User, 'u')} "
               f"FROM {quote(Token._meta.db_table)} t JOIN {quote(User._meta.db_table)} u "
               f"ON u.{quote(User._meta.pk.column)} = t.{quote(Token._meta.get_field('user').column)} "
               f"WHERE t.{quote(Token._meta.pk.column)} = %s")
        row = hand_sql.fetchone(sql, [key])
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        width = hand_sql.width(Token)
        token = hand_sql.instance(Token, row[:width], "t")
        user = hand_sql.instance(User, row[width:], "u")
        # Both ends cached, as the ORM's join leaves them (token.user, user.auth_token).
        Token.user.field.set_cached_value(token, user)
        User.auth_token.related.set_cached_value(user, token)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (user, token)
