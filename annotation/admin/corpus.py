"""Django admin of debate material: topics and arguments."""

from __future__ import annotations

from django.contrib import admin

from annotation.models import Argument, Topic


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["external_id", "prompt", "stance"]
    search_fields = ["external_id", "prompt"]


@admin.register(Argument)
class ArgumentAdmin(admin.ModelAdmin):
    list_display = ["external_id", "topic", "author", "word_count"]
    list_filter = ["topic"]
    search_fields = ["external_id", "text"]
